// Quantisation: QuantizeLinear and DequantizeLinear map to Mote's ops;
// DynamicQuantizeLinear, QLinearMatMul and MatMulInteger become float
// graphs by their ONNX definitions (dequantise, compute, requantise) until
// int8 kernels exist.
#include "converters/onnx/mapper_util.hpp"
#include "converters/onnx/tensor_proto.hpp"

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


int binary(NodeContext& ctx, fb::OpType type, int a, int b, const std::string& name, int out = -1) {
  if (out < 0) out = ctx.temp(name);
  ctx.emit(type, {a, b}, {out});
  return out;
}

// y_scale = (max(0, max x) - min(0, min x)) / 255, y_zero_point =
// saturate(round(-min / scale)), y = saturate(round(x / scale) + zero_point),
// all u8.
Status map_dynamic_quantize(NodeContext& ctx) {
  const int x = ctx.input(0);
  fb::ReduceAttrsT all;
  all.keepdims = false;
  const int zero = ctx.scalar(DType::F32, 0.0, "zero");
  const int lo = ctx.temp("min"), hi = ctx.temp("max");
  ctx.emit(fb::OpType::ReduceMin, {x}, {lo}, all);
  ctx.emit(fb::OpType::ReduceMax, {x}, {hi}, all);
  const int lo0 = binary(ctx, fb::OpType::Min, lo, zero, "min0");
  const int hi0 = binary(ctx, fb::OpType::Max, hi, zero, "max0");
  const int range = binary(ctx, fb::OpType::Sub, hi0, lo0, "range");
  const int scale = binary(ctx, fb::OpType::Div, range, ctx.scalar(DType::F32, 255.0, "levels"), "", ctx.output(1));
  const int shift = binary(ctx, fb::OpType::Div, binary(ctx, fb::OpType::Sub, zero, lo0, "neg_min"), scale, "shift");
  const int u8_min = ctx.scalar(DType::F32, 0.0, "u8_min"), u8_max = ctx.scalar(DType::F32, 255.0, "u8_max");
  const int zp = ctx.temp("zero_point");
  const int rounded_shift = ctx.temp("rounded_shift");
  ctx.emit(fb::OpType::Round, {shift}, {rounded_shift});
  ctx.emit(fb::OpType::Clip, {rounded_shift, u8_min, u8_max}, {zp});
  cast(ctx, zp, DType::U8, "", ctx.output(2));
  const int rounded = ctx.temp("rounded");
  ctx.emit(fb::OpType::Round, {binary(ctx, fb::OpType::Div, x, scale, "scaled")}, {rounded});
  const int clipped = ctx.temp("clipped");
  ctx.emit(fb::OpType::Clip, {binary(ctx, fb::OpType::Add, rounded, zp, "shifted"), u8_min, u8_max}, {clipped});
  cast(ctx, clipped, DType::U8, "", ctx.output(0));
  return ctx.status();
}

int dequantize(NodeContext& ctx, int x, int scale, int zero_point, int64_t axis, const std::string& name) {
  fb::QuantizeAttrsT a;
  a.axis = axis;
  const int out = ctx.temp(name);
  ctx.emit(fb::OpType::DequantizeLinear, {x, scale, zero_point}, {out}, a);
  return out;
}

// QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp): b's
// parameters may be per column (its last axis).
Status map_qlinear_matmul(NodeContext& ctx) {
  const int a = dequantize(ctx, ctx.input(0), ctx.input(1), ctx.input(2), 1, "a_real");
  const int b = dequantize(ctx, ctx.input(3), ctx.input(4), ctx.input(5), -1, "b_real");
  const int product = binary(ctx, fb::OpType::MatMul, a, b, "product");
  fb::QuantizeAttrsT q;
  ctx.emit(fb::OpType::QuantizeLinear, {product, ctx.input(6), ctx.input(7)}, {ctx.output(0)}, q);
  return ctx.status();
}

// MatMulInteger(A, B, a_zp?, b_zp?) -> i32: the zero-point-shifted
// integers multiplied in f32, exact while sums stay below 2^24.
Status map_matmul_integer(NodeContext& ctx) {
  int operands[2];
  for (int k = 0; k < 2; ++k) {
    int wide = cast(ctx, ctx.input(static_cast<size_t>(k)), DType::F32, k == 0 ? "a_f32" : "b_f32");
    const size_t zp_input = static_cast<size_t>(2 + k);
    if (ctx.input_count() > zp_input && ctx.has_input(zp_input)) {
      const Value& zp = ctx.value(ctx.input(zp_input));
      if (!zp.shape_static() || shape_numel(zp.shape) != 1) {
        return ctx.unsupported("per-row or per-column zero points (Mote supports one per tensor)");
      }
      wide = binary(ctx, fb::OpType::Sub, wide, cast(ctx, ctx.input(zp_input), DType::F32, "zp_f32"), "shifted");
    }
    operands[k] = wide;
  }
  cast(ctx, binary(ctx, fb::OpType::MatMul, operands[0], operands[1], "product"), DType::I32, "", ctx.output(0));
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(QuantizeLinear, map_quantize);
MOTE_ONNX_OP(DequantizeLinear, map_dequantize);
MOTE_ONNX_OP(DynamicQuantizeLinear, map_dynamic_quantize);
MOTE_ONNX_OP(QLinearMatMul, map_qlinear_matmul);
MOTE_ONNX_OP(MatMulInteger, map_matmul_integer);

}  // namespace mote::convert
