// QLinearMatMul: the int8 matrix product of ONNX (opset 10), MatMul's shapes
// with quantised A, B and Y (qlinear_matmul.hpp has the equation). A and B
// are i8 or u8, Y takes y_zero_point's type. Mote takes a per-tensor A (ONNX
// also allows one scale per row of a 2-D A, which the converter leaves to a
// float graph) and B per tensor or per column, and an optional i32 bias
// (input 8, Mote's extension).
#include "runtime/ops/qlinear_matmul.hpp"

#include <string>

#include "runtime/core/shape_util.hpp"
#include "runtime/ops/matmul_shape.hpp"
#include "runtime/ops/qlinear_conv.hpp"
#include "runtime/ops/quantize.hpp"

namespace mote {

namespace {

constexpr const char* kNames[] = {"a",       "a_scale",      "a_zero_point", "b", "b_scale", "b_zero_point",
                                  "y_scale", "y_zero_point", "bias"};

Status check_inputs(ShapeContext& ctx, int64_t columns) {
  auto dtype_error = [&](size_t i, const std::string& want) {
    return ctx.fail(std::string(kNames[i]) + " has dtype " + dtype_name(ctx.dtype(i)) + "; expected " + want);
  };
  for (size_t i : {kQmA, kQmB, kQmYZero}) {
    if (!is_8bit(ctx.dtype(i))) return dtype_error(i, "i8 or u8");
  }
  if (ctx.dtype(kQmAZero) != ctx.dtype(kQmA)) return dtype_error(kQmAZero, "a's");
  if (ctx.dtype(kQmBZero) != ctx.dtype(kQmB)) return dtype_error(kQmBZero, "b's");
  for (size_t i : {kQmAScale, kQmBScale, kQmYScale}) {
    if (ctx.dtype(i) != DType::F32) return dtype_error(i, "f32");
  }
  for (size_t i : {kQmAScale, kQmAZero, kQmYScale, kQmYZero}) {
    if (shape_numel(ctx.shape(i)) != 1) {
      return ctx.fail(std::string(kNames[i]) + " has shape " + shape_to_string(ctx.shape(i)) +
                      "; expected one value (per-tensor quantisation)");
    }
  }
  for (size_t i : {kQmBScale, kQmBZero}) {
    const int64_t n = shape_numel(ctx.shape(i));
    if (ctx.rank(i) > 1 || (n != 1 && n != columns)) {
      return ctx.fail(std::string(kNames[i]) + " has shape " + shape_to_string(ctx.shape(i)) +
                      "; expected one value or one per column of b (" + std::to_string(columns) + ")");
    }
  }
  if (ctx.has_input(kQmBias)) {
    if (ctx.dtype(kQmBias) != DType::I32) return dtype_error(kQmBias, "i32");
    if (ctx.shape(kQmBias) != Shape{columns}) {
      return ctx.fail("bias has shape " + shape_to_string(ctx.shape(kQmBias)) + "; expected [" +
                      std::to_string(columns) + "] (one per column of b)");
    }
  }
  return {};
}

Status infer_qlinear_matmul(ShapeContext& ctx) {
  auto s = resolve_matmul(ctx.shape(kQmA), ctx.shape(kQmB));
  if (!s.ok()) return ctx.fail(s.status().message());
  MOTE_RETURN_IF_ERROR(check_inputs(ctx, s->n));
  ctx.set_output(0, ctx.dtype(kQmYZero), s->output);
  return {};
}

}  // namespace

Result<QLinearMatMulParams> read_qlinear_matmul_params(const std::vector<const Tensor*>& inputs, int64_t columns) {
  const auto in = [&](size_t i) -> const Tensor& { return *inputs[i]; };
  QLinearMatMulParams p;
  p.a_scale = in(kQmAScale).data<float>()[0];
  p.y_scale = in(kQmYScale).data<float>()[0];
  p.a_zero = int8_element(in(kQmAZero), 0);
  p.y_zero = int8_element(in(kQmYZero), 0);
  p.y_dtype = in(kQmYZero).dtype();
  const Tensor& bs = in(kQmBScale);
  const Tensor& bz = in(kQmBZero);
  for (int64_t n = 0; n < columns; ++n) {
    p.b_scale.push_back(bs.data<float>()[bs.numel() == 1 ? 0 : n]);
    p.b_zero.push_back(int8_element(bz, bz.numel() == 1 ? 0 : n));
  }
  MOTE_RETURN_IF_ERROR(check_qlinear_scale("a_scale", p.a_scale));
  MOTE_RETURN_IF_ERROR(check_qlinear_scale("y_scale", p.y_scale));
  for (float s : p.b_scale) MOTE_RETURN_IF_ERROR(check_qlinear_scale("b_scale", s));
  return p;
}

}  // namespace mote

MOTE_OP_DEF(QLinearMatMul, {.min_inputs = 8, .max_inputs = 9, .infer = mote::infer_qlinear_matmul});
