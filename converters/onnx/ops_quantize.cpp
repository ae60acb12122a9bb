// Quantisation: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
// QLinearConv, QLinearMatMul, MatMulInteger and ConvInteger map to Mote's
// ops (the last four run in integers); one whose parameters Mote's op does
// not take becomes a float graph by its ONNX definition (dequantise,
// compute, requantise).
#include "converters/onnx/mapper_util.hpp"
#include "converters/onnx/tensor_proto.hpp"
#include "runtime/ops/quantize.hpp"

namespace mote::convert {
namespace {

fb::QuantizeAttrsT quantize_attrs(NodeContext& ctx) {
  fb::QuantizeAttrsT a;
  a.axis = ctx.attr_int("axis", 1);
  a.block_size = ctx.attr_int("block_size", 0);
  return a;
}

Status map_quantize(NodeContext& ctx) {
  fb::QuantizeAttrsT a = quantize_attrs(ctx);
  if (const int64_t onnx_type = ctx.attr_int("output_dtype", 0); onnx_type != 0) {
    auto dtype = dtype_from_onnx(static_cast<int32_t>(onnx_type));
    if (!dtype.ok() || (*dtype != DType::I8 && *dtype != DType::U8)) {
      return ctx.unsupported("output_dtype " + onnx_type_name(static_cast<int32_t>(onnx_type)) +
                             " (Mote quantises to INT8 and UINT8)");
    }
    a.output_dtype = *dtype;
  }
  return map_direct(ctx, fb::OpType::QuantizeLinear, a);
}

Status map_dequantize(NodeContext& ctx) {
  return map_direct(ctx, fb::OpType::DequantizeLinear, quantize_attrs(ctx));
}

// DynamicQuantizeLinear: Mote's op (runtime/ops/dynamic_quantize.hpp),
// where it was a float graph of 16 ops (ReduceMin, ReduceMax, Div, Round,
// Clip, Cast...).
Status map_dynamic_quantize(NodeContext& ctx) { return map_direct(ctx, fb::OpType::DynamicQuantizeLinear); }

// Whether a QLinearConv's or QLinearMatMul's first eight inputs are all
// there with known types, the shapes of all but the activation (input 0,
// whose shape the importer may not know yet) known, and its three scales
// f32.
bool qlinear_inputs_known(NodeContext& ctx) {
  for (size_t i = 0; i < 8; ++i) {
    if (!ctx.has_input(i)) return false;
    const Value& v = ctx.value(ctx.input(i));
    if (!v.dtype_known || (i > 0 && !v.shape_static())) return false;
  }
  for (size_t i : {1, 4, 6}) {
    if (ctx.value(ctx.input(i)).dtype != DType::F32) return false;
  }
  return true;
}

// Whether Mote's QLinearMatMul takes this node's parameters: f32 scales,
// a's and y's per tensor (ONNX also allows a's per row), b's per tensor or
// per column (b's last axis), shapes known.
bool int8_matmul_fits(NodeContext& ctx) {
  if (!qlinear_inputs_known(ctx)) return false;
  auto known = [&](size_t i) -> const Value& { return ctx.value(ctx.input(i)); };
  for (size_t i : {1, 2, 6, 7}) {
    if (shape_numel(known(i).shape) != 1) return false;
  }
  const Value& b = known(3);
  const int64_t columns = b.shape.size() < 2 ? 1 : b.shape.back();
  for (size_t i : {4, 5}) {
    const int64_t n = shape_numel(known(i).shape);
    if (n != 1 && (known(i).shape.size() != 1 || n != columns)) return false;
  }
  return true;
}

// QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp): Mote's
// int8 op where it fits; otherwise a float MatMul between dequantised
// operands (b's parameters may be per column, its last axis), requantised.
Status map_qlinear_matmul(NodeContext& ctx) {
  if (int8_matmul_fits(ctx)) {
    std::vector<int> inputs;
    for (size_t i = 0; i < 8; ++i) inputs.push_back(ctx.input(i));
    ctx.emit(fb::OpType::QLinearMatMul, inputs, {ctx.output(0)});
    return ctx.status();
  }
  const int a = dequantize(ctx, ctx.input(0), ctx.input(1), ctx.input(2), 1, "a_real");
  const int b = dequantize(ctx, ctx.input(3), ctx.input(4), ctx.input(5), -1, "b_real");
  const int product = binary(ctx, fb::OpType::MatMul, a, b, "product");
  fb::QuantizeAttrsT q;
  ctx.emit(fb::OpType::QuantizeLinear, {product, ctx.input(6), ctx.input(7)}, {ctx.output(0)}, q);
  return ctx.status();
}

// A MatMulInteger or ConvInteger operand in f32 less its zero point: one
// value, or for ConvInteger's W (`per_channel`) one per output channel,
// reshaped to [M, 1, ...] to broadcast over W's other axes (the onnx suite
// tests it; onnxruntime refuses it).
int shifted_f32(NodeContext& ctx, size_t operand, size_t zero_point, const std::string& name, bool per_channel) {
  const int wide = cast(ctx, ctx.input(operand), DType::F32, name + "_f32");
  if (ctx.input_count() <= zero_point || !ctx.has_input(zero_point)) return wide;
  int zp = cast(ctx, ctx.input(zero_point), DType::F32, name + "_zp_f32");
  const Value& zp_value = ctx.value(ctx.input(zero_point));
  const Value& operand_value = ctx.value(ctx.input(operand));
  const bool one = zp_value.shape_static() && shape_numel(zp_value.shape) == 1;
  if (!one) {
    if (!per_channel || !zp_value.shape_static() || zp_value.shape.size() != 1 || !operand_value.shape_static() ||
        operand_value.shape.empty() || zp_value.shape[0] != operand_value.shape[0]) {
      ctx.fail(ctx.unsupported(name + ": zero points other than one per tensor" +
                               (per_channel ? std::string(" or one per output channel") : std::string())));
      return wide;
    }
    std::vector<int64_t> column(operand_value.shape.size(), 1);
    column[0] = zp_value.shape[0];
    const int reshaped = ctx.temp(name + "_zp_per_channel");
    ctx.emit(fb::OpType::Reshape, {zp, ctx.constant_i64(column, name + "_zp_shape")}, {reshaped});
    zp = reshaped;
  }
  return binary(ctx, fb::OpType::Sub, wide, zp, name + "_shifted");
}

// Whether Mote's MatMulInteger or ConvInteger takes this node's operands
// (A or x, B or w, their optional zero points): all 8-bit, B's shape
// known, A's zero point one value, B's one or `per_b` values (one per
// column of B, or per output channel of w; ONNX also allows A's one per row
// of a 2-D A). A zero point whose shape the importer does not know yet
// (DynamicQuantizeLinear's, in every model onnxruntime's quantize_dynamic
// writes) is taken: the runtime checks it when the shapes are known, and
// says which it is.
bool integer_op_fits(NodeContext& ctx, int64_t (*per_b)(const Shape& b)) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return false;
  for (size_t i = 0; i < ctx.input_count() && i < 4; ++i) {
    if (!ctx.has_input(i)) continue;
    const Value& v = ctx.value(ctx.input(i));
    if (!v.dtype_known || !is_8bit(v.dtype) || (i == 1 && !v.shape_static())) return false;
  }
  const auto known = [&](size_t i) {
    return ctx.input_count() > i && ctx.has_input(i) && ctx.value(ctx.input(i)).shape_static();
  };
  if (known(2) && shape_numel(ctx.value(ctx.input(2)).shape) != 1) return false;
  if (known(3)) {
    const Shape& z = ctx.value(ctx.input(3)).shape;
    if (shape_numel(z) != 1 && (z.size() != 1 || z[0] != per_b(ctx.value(ctx.input(1)).shape))) return false;
  }
  return true;
}

int64_t columns_of(const Shape& b) { return b.size() < 2 ? 1 : b.back(); }
int64_t out_channels_of(const Shape& w) { return w.empty() ? -1 : w[0]; }

// MatMulInteger(A, B, a_zp?, b_zp?) -> i32: Mote's op (exact int32 sums)
// where it fits; otherwise the zero-point-shifted integers multiplied in
// f32, exact while sums stay below 2^24.
Status map_matmul_integer(NodeContext& ctx) {
  if (integer_op_fits(ctx, columns_of)) return map_direct(ctx, fb::OpType::MatMulInteger);
  const int a = shifted_f32(ctx, 0, 2, "a", false);
  const int b = shifted_f32(ctx, 1, 3, "b", false);
  cast(ctx, binary(ctx, fb::OpType::MatMul, a, b, "product"), DType::I32, "", ctx.output(0));
  return ctx.status();
}

// ConvInteger(x, w, x_zp?, w_zp?) -> i32: Mote's op (exact int32 sums)
// where it fits; otherwise the zero-point-shifted integers convolved in
// f32, exact while sums stay below 2^24 (as MatMulInteger); w's zero point
// may be one per output channel.
Status map_conv_integer(NodeContext& ctx) {
  if (integer_op_fits(ctx, out_channels_of)) return map_direct(ctx, fb::OpType::ConvInteger, onnx_conv_attrs(ctx));
  const int x = shifted_f32(ctx, 0, 2, "x", false);
  const int w = shifted_f32(ctx, 1, 3, "w", true);
  const int sum = ctx.temp("sum");
  ctx.emit(fb::OpType::Conv, {x, w}, {sum}, onnx_conv_attrs(ctx));
  cast(ctx, sum, DType::I32, "", ctx.output(0));
  return ctx.status();
}

// Whether Mote's QLinearConv takes this node's parameters: f32 scales, one
// x and y scale and zero point (ONNX requires that too), w's per tensor or
// per output channel, zero points of their operand's type.
bool int8_conv_fits(NodeContext& ctx) {
  if (!qlinear_inputs_known(ctx)) return false;
  auto known = [&](size_t i) -> const Value& { return ctx.value(ctx.input(i)); };
  const Value& w = known(3);
  const int64_t w_params = shape_numel(known(4).shape);
  return w_params == 1 || (known(4).shape.size() == 1 && !w.shape.empty() && w_params == w.shape[0]);
}

// QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B?): Mote's
// int8 op where it fits; otherwise dequantised operands (w per output
// channel), the i32 bias scaled by x_scale * w_scale, a float Conv,
// requantised to y's type.
Status map_qlinear_conv(NodeContext& ctx) {
  if (int8_conv_fits(ctx)) {
    std::vector<int> inputs;
    for (size_t i = 0; i < 8; ++i) inputs.push_back(ctx.input(i));
    if (ctx.input_count() > 8 && ctx.has_input(8)) inputs.push_back(ctx.input(8));
    ctx.emit(fb::OpType::QLinearConv, inputs, {ctx.output(0)}, onnx_conv_attrs(ctx));
    return ctx.status();
  }
  const int x = dequantize(ctx, ctx.input(0), ctx.input(1), ctx.input(2), 1, "x_real");
  const int w = dequantize(ctx, ctx.input(3), ctx.input(4), ctx.input(5), 0, "w_real");
  std::vector<int> inputs = {x, w};
  if (ctx.input_count() > 8 && ctx.has_input(8)) {
    const int bias_scale = binary(ctx, fb::OpType::Mul, ctx.input(1), ctx.input(4), "bias_scale");
    inputs.push_back(binary(ctx, fb::OpType::Mul, cast(ctx, ctx.input(8), DType::F32, "bias_f32"), bias_scale,
                            "bias_real"));
  }
  const int y = ctx.temp("y_real");
  ctx.emit(fb::OpType::Conv, inputs, {y}, onnx_conv_attrs(ctx));
  ctx.emit(fb::OpType::QuantizeLinear, {y, ctx.input(6), ctx.input(7)}, {ctx.output(0)}, fb::QuantizeAttrsT{});
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(QuantizeLinear, map_quantize);
MOTE_ONNX_OP(DequantizeLinear, map_dequantize);
MOTE_ONNX_OP(DynamicQuantizeLinear, map_dynamic_quantize);
MOTE_ONNX_OP(QLinearMatMul, map_qlinear_matmul);
MOTE_ONNX_OP(MatMulInteger, map_matmul_integer);
MOTE_ONNX_OP(ConvInteger, map_conv_integer);
MOTE_ONNX_OP(QLinearConv, map_qlinear_conv);

}  // namespace mote::convert
