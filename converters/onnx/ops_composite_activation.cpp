// Activations and tests ONNX defines as functions of simpler ops, converted
// to those ops of Mote's (so they run on every backend, Vulkan included):
//   Celu(x)            = alpha * Elu(x / alpha)
//   Mish(x)            = x * tanh(softplus(x))
//   Swish(x)           = x * sigmoid(alpha * x)
//   ThresholdedRelu(x) = x > alpha ? x : 0
//   Shrink(x)          = x < -lambd ? x + bias : x > lambd ? x - bias : 0
//   IsNaN(x)           = not (x == x)
//   IsInf(x)           = |x| == inf, or x == +inf / x == -inf alone
//   Mean(x...)         = (x1 + ... + xn) / n
#include <limits>

#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The dtype of the constants: the input's, except that f16 graphs compute
// in f32 (the widen_f16 pass), so their constants are f32 from the start.
DType float_dtype(NodeContext& ctx) {
  const DType d = ctx.input_dtype(0).value_or(DType::F32);
  return d == DType::F16 ? DType::F32 : d;
}

// out = op(x) into a new temporary (or `out` when given).
int unary(NodeContext& ctx, fb::OpType type, int x, const std::string& name, int out = -1) {
  if (out < 0) out = ctx.temp(name);
  ctx.emit(type, {x}, {out});
  return out;
}

Status map_celu(NodeContext& ctx) {
  const DType d = float_dtype(ctx);
  const int alpha = ctx.scalar(d, ctx.attr_float("alpha", 1.0f), "alpha");
  const int scaled = binary(ctx, fb::OpType::Div, ctx.input(0), alpha, "scaled");
  fb::ActivationAttrsT elu;
  elu.alpha = 1.0f;
  const int e = ctx.temp("elu");
  ctx.emit(fb::OpType::Elu, {scaled}, {e}, elu);
  binary(ctx, fb::OpType::Mul, e, alpha, "", ctx.output(0));
  return ctx.status();
}

Status map_mish(NodeContext& ctx) {
  const int soft = unary(ctx, fb::OpType::Softplus, ctx.input(0), "softplus");
  const int t = unary(ctx, fb::OpType::Tanh, soft, "tanh");
  binary(ctx, fb::OpType::Mul, ctx.input(0), t, "", ctx.output(0));
  return ctx.status();
}

Status map_swish(NodeContext& ctx) {
  const float alpha = ctx.attr_float("alpha", 1.0f);
  int gate_input = ctx.input(0);
  if (alpha != 1.0f) gate_input = binary(ctx, fb::OpType::Mul, gate_input, ctx.scalar(float_dtype(ctx), alpha, "alpha"), "scaled");
  const int gate = unary(ctx, fb::OpType::Sigmoid, gate_input, "sigmoid");
  binary(ctx, fb::OpType::Mul, ctx.input(0), gate, "", ctx.output(0));
  return ctx.status();
}

Status map_thresholded_relu(NodeContext& ctx) {
  const DType d = float_dtype(ctx);
  const int above = binary(ctx, fb::OpType::Greater, ctx.input(0), ctx.scalar(d, ctx.attr_float("alpha", 1.0f), "alpha"), "above");
  ctx.emit(fb::OpType::Where, {above, ctx.input(0), ctx.scalar(d, 0.0, "zero")}, {ctx.output(0)});
  return ctx.status();
}

Status map_shrink(NodeContext& ctx) {
  const DType d = float_dtype(ctx);
  const int x = ctx.input(0);
  const double lambd = ctx.attr_float("lambd", 0.5f);
  const double bias = ctx.attr_float("bias", 0.0f);
  const int below = binary(ctx, fb::OpType::Less, x, ctx.scalar(d, -lambd, "minus_lambd"), "below");
  const int above = binary(ctx, fb::OpType::Greater, x, ctx.scalar(d, lambd, "lambd"), "above");
  const int raised = binary(ctx, fb::OpType::Add, x, ctx.scalar(d, bias, "bias"), "raised");
  const int lowered = binary(ctx, fb::OpType::Sub, x, ctx.scalar(d, bias, "bias"), "lowered");
  const int upper = ctx.temp("upper");
  ctx.emit(fb::OpType::Where, {above, lowered, ctx.scalar(d, 0.0, "zero")}, {upper});
  ctx.emit(fb::OpType::Where, {below, raised, upper}, {ctx.output(0)});
  return ctx.status();
}

Status map_is_nan(NodeContext& ctx) {
  const int same = binary(ctx, fb::OpType::Equal, ctx.input(0), ctx.input(0), "equals_itself");
  unary(ctx, fb::OpType::Not, same, "", ctx.output(0));
  return ctx.status();
}

Status map_is_inf(NodeContext& ctx) {
  const DType d = float_dtype(ctx);
  const bool positive = ctx.attr_int("detect_positive", 1) != 0;
  const bool negative = ctx.attr_int("detect_negative", 1) != 0;
  const int x = ctx.input(0);
  if (positive && negative) {
    binary(ctx, fb::OpType::Equal, unary(ctx, fb::OpType::Abs, x, "abs"), ctx.scalar(d, kInf, "inf"), "", ctx.output(0));
  } else if (positive || negative) {
    binary(ctx, fb::OpType::Equal, x, ctx.scalar(d, positive ? kInf : -kInf, "inf"), "", ctx.output(0));
  } else {
    // Detects nothing: false everywhere (NaN equals nothing).
    binary(ctx, fb::OpType::Equal, x, ctx.scalar(d, std::numeric_limits<double>::quiet_NaN(), "nan"), "",
           ctx.output(0));
  }
  return ctx.status();
}

Status map_mean(NodeContext& ctx) {
  if (ctx.input_count() == 0) return ctx.invalid("needs at least one input");
  int acc = ctx.input(0);
  for (size_t i = 1; i < ctx.input_count(); ++i) acc = binary(ctx, fb::OpType::Add, acc, ctx.input(i), "sum");
  const double n = static_cast<double>(ctx.input_count());
  binary(ctx, fb::OpType::Div, acc, ctx.scalar(float_dtype(ctx), n, "count"), "", ctx.output(0));
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(Celu, map_celu);
MOTE_ONNX_OP(Mish, map_mish);
MOTE_ONNX_OP(Swish, map_swish);
MOTE_ONNX_OP(ThresholdedRelu, map_thresholded_relu);
MOTE_ONNX_OP(Shrink, map_shrink);
MOTE_ONNX_OP(IsNaN, map_is_nan);
MOTE_ONNX_OP(IsInf, map_is_inf);
MOTE_ONNX_OP(Mean, map_mean);

}  // namespace mote::convert
