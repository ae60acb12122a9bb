// Unary math and activations. Mote's ActivationAttrs, when present, replaces
// every parameter of the op, so mappers always fill all of them with the
// ONNX defaults of the op.
#include <cfloat>

#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

template <fb::OpType kType>
Status map_unary(NodeContext& ctx) {
  ctx.emit(kType, {ctx.input(0)}, {ctx.output(0)});
  return ctx.status();
}

Status emit_activation(NodeContext& ctx, fb::OpType type, float alpha, float beta, float gamma) {
  fb::ActivationAttrsT a;
  a.alpha = alpha;
  a.beta = beta;
  a.gamma = gamma;
  ctx.emit(type, {ctx.input(0)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_leaky_relu(NodeContext& ctx) {
  return emit_activation(ctx, fb::OpType::LeakyRelu, ctx.attr_float("alpha", 0.01f), 0, 0);
}

Status map_elu(NodeContext& ctx) { return emit_activation(ctx, fb::OpType::Elu, ctx.attr_float("alpha", 1.0f), 0, 0); }

Status map_selu(NodeContext& ctx) {
  return emit_activation(ctx, fb::OpType::Selu, ctx.attr_float("alpha", 1.67326319217681884765625f), 0,
                         ctx.attr_float("gamma", 1.05070102214813232421875f));
}

Status map_hard_sigmoid(NodeContext& ctx) {
  return emit_activation(ctx, fb::OpType::HardSigmoid, ctx.attr_float("alpha", 0.2f), ctx.attr_float("beta", 0.5f), 0);
}

Status map_gelu(NodeContext& ctx) {
  std::string approximate = ctx.attr_string("approximate", "none");
  if (approximate != "none" && approximate != "tanh") {
    return ctx.invalid("unknown approximate '" + approximate + "'");
  }
  fb::ActivationAttrsT a;
  a.approximate_tanh = approximate == "tanh";
  ctx.emit(fb::OpType::Gelu, {ctx.input(0)}, {ctx.output(0)}, a);
  return ctx.status();
}

// Clip: bounds are attributes up to opset 10 and optional inputs since 11.
Status map_clip(NodeContext& ctx) {
  int x = ctx.input(0);
  if (ctx.opset() >= 11) return map_direct(ctx, fb::OpType::Clip);
  DType dtype = ctx.input_dtype(0).value_or(DType::F32);
  int lo = ctx.has_attr("min") ? ctx.scalar(dtype, ctx.attr_float("min", -FLT_MAX), "min") : -1;
  int hi = ctx.has_attr("max") ? ctx.scalar(dtype, ctx.attr_float("max", FLT_MAX), "max") : -1;
  std::vector<int> inputs = {x, lo, hi};
  trim_omitted(inputs);
  ctx.emit(fb::OpType::Clip, inputs, {ctx.output(0)});
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(Sqrt, map_unary<fb::OpType::Sqrt>);
MOTE_ONNX_OP(Exp, map_unary<fb::OpType::Exp>);
MOTE_ONNX_OP(Log, map_unary<fb::OpType::Log>);
MOTE_ONNX_OP(Abs, map_unary<fb::OpType::Abs>);
MOTE_ONNX_OP(Neg, map_unary<fb::OpType::Neg>);
MOTE_ONNX_OP(Reciprocal, map_unary<fb::OpType::Reciprocal>);
MOTE_ONNX_OP(Relu, map_unary<fb::OpType::Relu>);
MOTE_ONNX_OP(Sigmoid, map_unary<fb::OpType::Sigmoid>);
MOTE_ONNX_OP(Tanh, map_unary<fb::OpType::Tanh>);
MOTE_ONNX_OP(HardSwish, map_unary<fb::OpType::HardSwish>);
MOTE_ONNX_OP(Erf, map_unary<fb::OpType::Erf>);
MOTE_ONNX_OP(Softplus, map_unary<fb::OpType::Softplus>);
MOTE_ONNX_OP(Sin, map_unary<fb::OpType::Sin>);
MOTE_ONNX_OP(Cos, map_unary<fb::OpType::Cos>);
MOTE_ONNX_OP(Tan, map_unary<fb::OpType::Tan>);
MOTE_ONNX_OP(Asin, map_unary<fb::OpType::Asin>);
MOTE_ONNX_OP(Acos, map_unary<fb::OpType::Acos>);
MOTE_ONNX_OP(Atan, map_unary<fb::OpType::Atan>);
MOTE_ONNX_OP(Sinh, map_unary<fb::OpType::Sinh>);
MOTE_ONNX_OP(Cosh, map_unary<fb::OpType::Cosh>);
MOTE_ONNX_OP(Asinh, map_unary<fb::OpType::Asinh>);
MOTE_ONNX_OP(Acosh, map_unary<fb::OpType::Acosh>);
MOTE_ONNX_OP(Atanh, map_unary<fb::OpType::Atanh>);
MOTE_ONNX_OP(Softsign, map_unary<fb::OpType::Softsign>);
MOTE_ONNX_OP(Floor, map_unary<fb::OpType::Floor>);
MOTE_ONNX_OP(Ceil, map_unary<fb::OpType::Ceil>);
MOTE_ONNX_OP(Round, map_unary<fb::OpType::Round>);
MOTE_ONNX_OP(Sign, map_unary<fb::OpType::Sign>);
MOTE_ONNX_OP(LeakyRelu, map_leaky_relu);
MOTE_ONNX_OP(Elu, map_elu);
MOTE_ONNX_OP(Selu, map_selu);
MOTE_ONNX_OP(HardSigmoid, map_hard_sigmoid);
MOTE_ONNX_OP(Gelu, map_gelu);
MOTE_ONNX_OP(Clip, map_clip);

}  // namespace mote::convert
