// Elementwise operators: binary arithmetic with numpy broadcasting (and the
// fused activation of ADD, SUB, MUL, DIV), activations and unary math. They
// run in whichever order their inputs are held (mapper_util.hpp), so they
// never add a transpose between two convolutions.
#include "converters/tflite/mapper_util.hpp"

namespace mote::convert {
namespace {

tfl::ActivationFunctionType fused_activation(TfliteOpContext& ctx) {
  if (const auto* o = ctx.options<tfl::AddOptions>(false)) return o->fused_activation_function();
  if (const auto* o = ctx.options<tfl::SubOptions>(false)) return o->fused_activation_function();
  if (const auto* o = ctx.options<tfl::MulOptions>(false)) return o->fused_activation_function();
  if (const auto* o = ctx.options<tfl::DivOptions>(false)) return o->fused_activation_function();
  return tfl::ActivationFunctionType::NONE;
}

Status binary(TfliteOpContext& ctx, fb::OpType type) {
  const Layout layout = follow_inputs(ctx, {0, 1});
  int a = broadcast_input(ctx, 0, layout), b = broadcast_input(ctx, 1, layout);
  ctx.emit(type, {a, b}, {ctx.output_before(fused_activation(ctx), 0, layout)});
  return ctx.status();
}

Status unary(TfliteOpContext& ctx, fb::OpType type) {
  const Layout layout = follow_inputs(ctx, {0});
  ctx.emit(type, {ctx.input(0, layout)}, {ctx.output(0, layout)});
  return ctx.status();
}

Status clip(TfliteOpContext& ctx, float lo, float hi) {
  const Layout layout = follow_inputs(ctx, {0});
  ctx.emit(fb::OpType::Clip, {ctx.input(0, layout), ctx.scalar_f32(lo, "min"), ctx.scalar_f32(hi, "max")},
           {ctx.output(0, layout)});
  return ctx.status();
}

Status map_add(TfliteOpContext& ctx) { return binary(ctx, fb::OpType::Add); }
Status map_sub(TfliteOpContext& ctx) { return binary(ctx, fb::OpType::Sub); }
Status map_mul(TfliteOpContext& ctx) { return binary(ctx, fb::OpType::Mul); }
Status map_div(TfliteOpContext& ctx) { return binary(ctx, fb::OpType::Div); }
Status map_maximum(TfliteOpContext& ctx) { return binary(ctx, fb::OpType::Max); }
Status map_minimum(TfliteOpContext& ctx) { return binary(ctx, fb::OpType::Min); }
Status map_pow(TfliteOpContext& ctx) { return binary(ctx, fb::OpType::Pow); }
// PReLU's alpha broadcasts against the input like a binary operand.
Status map_prelu(TfliteOpContext& ctx) { return binary(ctx, fb::OpType::PRelu); }

Status map_squared_difference(TfliteOpContext& ctx) {
  const Layout layout = follow_inputs(ctx, {0, 1});
  int d = ctx.temp("difference");
  ctx.emit(fb::OpType::Sub, {broadcast_input(ctx, 0, layout), broadcast_input(ctx, 1, layout)}, {d});
  ctx.emit(fb::OpType::Mul, {d, d}, {ctx.output(0, layout)});
  return ctx.status();
}

Status map_relu(TfliteOpContext& ctx) { return unary(ctx, fb::OpType::Relu); }
Status map_relu6(TfliteOpContext& ctx) { return clip(ctx, 0, 6); }
Status map_relu_n1_to_1(TfliteOpContext& ctx) { return clip(ctx, -1, 1); }
Status map_logistic(TfliteOpContext& ctx) { return unary(ctx, fb::OpType::Sigmoid); }
Status map_tanh(TfliteOpContext& ctx) { return unary(ctx, fb::OpType::Tanh); }
Status map_hard_swish(TfliteOpContext& ctx) { return unary(ctx, fb::OpType::HardSwish); }
Status map_elu(TfliteOpContext& ctx) { return unary(ctx, fb::OpType::Elu); }
Status map_exp(TfliteOpContext& ctx) { return unary(ctx, fb::OpType::Exp); }
Status map_log(TfliteOpContext& ctx) { return unary(ctx, fb::OpType::Log); }
Status map_sqrt(TfliteOpContext& ctx) { return unary(ctx, fb::OpType::Sqrt); }
Status map_abs(TfliteOpContext& ctx) { return unary(ctx, fb::OpType::Abs); }
Status map_neg(TfliteOpContext& ctx) { return unary(ctx, fb::OpType::Neg); }
Status map_floor(TfliteOpContext& ctx) { return unary(ctx, fb::OpType::Floor); }
Status map_ceil(TfliteOpContext& ctx) { return unary(ctx, fb::OpType::Ceil); }
// TFLite rounds half to even, as ONNX's Round does.
Status map_round(TfliteOpContext& ctx) { return unary(ctx, fb::OpType::Round); }
Status map_sin(TfliteOpContext& ctx) { return unary(ctx, fb::OpType::Sin); }
Status map_cos(TfliteOpContext& ctx) { return unary(ctx, fb::OpType::Cos); }

Status map_rsqrt(TfliteOpContext& ctx) {
  const Layout layout = follow_inputs(ctx, {0});
  int root = ctx.temp("sqrt");
  ctx.emit(fb::OpType::Sqrt, {ctx.input(0, layout)}, {root});
  ctx.emit(fb::OpType::Reciprocal, {root}, {ctx.output(0, layout)});
  return ctx.status();
}

Status map_square(TfliteOpContext& ctx) {
  const Layout layout = follow_inputs(ctx, {0});
  int x = ctx.input(0, layout);
  ctx.emit(fb::OpType::Mul, {x, x}, {ctx.output(0, layout)});
  return ctx.status();
}

Status map_leaky_relu(TfliteOpContext& ctx) {
  const auto* o = ctx.options<tfl::LeakyReluOptions>();
  if (!o) return ctx.status();
  const Layout layout = follow_inputs(ctx, {0});
  fb::ActivationAttrsT a;
  a.alpha = o->alpha();
  ctx.emit(fb::OpType::LeakyRelu, {ctx.input(0, layout)}, {ctx.output(0, layout)}, a);
  return ctx.status();
}

Status map_gelu(TfliteOpContext& ctx) {
  const auto* o = ctx.options<tfl::GeluOptions>(false);
  const Layout layout = follow_inputs(ctx, {0});
  fb::ActivationAttrsT a;
  a.approximate_tanh = o && o->approximate();
  ctx.emit(fb::OpType::Gelu, {ctx.input(0, layout)}, {ctx.output(0, layout)}, a);
  return ctx.status();
}

}  // namespace

MOTE_TFLITE_OP(ADD, map_add);
MOTE_TFLITE_OP(SUB, map_sub);
MOTE_TFLITE_OP(MUL, map_mul);
MOTE_TFLITE_OP(DIV, map_div);
MOTE_TFLITE_OP(MAXIMUM, map_maximum);
MOTE_TFLITE_OP(MINIMUM, map_minimum);
MOTE_TFLITE_OP(POW, map_pow);
MOTE_TFLITE_OP(PRELU, map_prelu);
MOTE_TFLITE_OP(SQUARED_DIFFERENCE, map_squared_difference);
MOTE_TFLITE_OP(RELU, map_relu);
MOTE_TFLITE_OP(RELU6, map_relu6);
MOTE_TFLITE_OP(RELU_N1_TO_1, map_relu_n1_to_1);
MOTE_TFLITE_OP(LOGISTIC, map_logistic);
MOTE_TFLITE_OP(TANH, map_tanh);
MOTE_TFLITE_OP(HARD_SWISH, map_hard_swish);
MOTE_TFLITE_OP(ELU, map_elu);
MOTE_TFLITE_OP(EXP, map_exp);
MOTE_TFLITE_OP(LOG, map_log);
MOTE_TFLITE_OP(SQRT, map_sqrt);
MOTE_TFLITE_OP(RSQRT, map_rsqrt);
MOTE_TFLITE_OP(ABS, map_abs);
MOTE_TFLITE_OP(NEG, map_neg);
MOTE_TFLITE_OP(SQUARE, map_square);
MOTE_TFLITE_OP(FLOOR, map_floor);
MOTE_TFLITE_OP(CEIL, map_ceil);
MOTE_TFLITE_OP(ROUND, map_round);
MOTE_TFLITE_OP(SIN, map_sin);
MOTE_TFLITE_OP(COS, map_cos);
MOTE_TFLITE_OP(LEAKY_RELU, map_leaky_relu);
MOTE_TFLITE_OP(GELU, map_gelu);

}  // namespace mote::convert
