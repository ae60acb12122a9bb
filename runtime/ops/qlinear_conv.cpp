// QLinearConv: the int8 convolution of ONNX (opset 10), Conv's geometry and
// attributes with quantised X, W and Y (qlinear_conv.hpp has the equations).
// X and W are i8 or u8, Y takes y_zero_point's type, the bias is i32 in units
// of x_scale * w_scale. A fused activation (Relu, Clip, HardSwish, SiLU on
// the CPU backend) applies to the real value before it is requantised; a
// fused residual (inputs 9-11, Mote's extension) is added before that.
#include "runtime/ops/qlinear_conv.hpp"

#include <string>

#include "runtime/core/shape_util.hpp"
#include "runtime/ops/conv_geometry.hpp"

namespace mote {

namespace {

// The residual R, r_scale and r_zero_point: all three or none, R of Y's
// shape (no broadcasting), its scale and zero point per tensor.
Status check_residual(ShapeContext& ctx, const Shape& y_shape) {
  const int present = ctx.has_input(kQcResidual) + ctx.has_input(kQcResidualScale) + ctx.has_input(kQcResidualZero);
  if (present == 0) return {};
  if (present != 3) return ctx.fail("a fused residual needs all of inputs 9-11 (R, r_scale, r_zero_point)");
  if (!is_8bit(ctx.dtype(kQcResidual))) {
    return ctx.fail(std::string("residual R has dtype ") + dtype_name(ctx.dtype(kQcResidual)) + "; expected i8 or u8");
  }
  if (ctx.dtype(kQcResidualZero) != ctx.dtype(kQcResidual)) {
    return ctx.fail(std::string("r_zero_point has dtype ") + dtype_name(ctx.dtype(kQcResidualZero)) + "; expected R's");
  }
  if (ctx.dtype(kQcResidualScale) != DType::F32) {
    return ctx.fail(std::string("r_scale has dtype ") + dtype_name(ctx.dtype(kQcResidualScale)) + "; expected f32");
  }
  for (size_t i : {kQcResidualScale, kQcResidualZero}) {
    if (shape_numel(ctx.shape(i)) != 1) {
      return ctx.fail(std::string(i == kQcResidualScale ? "r_scale" : "r_zero_point") + " has shape " +
                      shape_to_string(ctx.shape(i)) + "; expected one value (per-tensor quantisation)");
    }
  }
  if (ctx.shape(kQcResidual) != y_shape) {
    return ctx.fail("residual R has shape " + shape_to_string(ctx.shape(kQcResidual)) + "; expected the output's, " +
                    shape_to_string(y_shape));
  }
  return {};
}

}  // namespace

Status check_qlinear_conv_inputs(ShapeContext& ctx, int64_t out_channels, const Shape& y_shape) {
  static const char* const kNames[] = {"x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point",
                                       "y_scale", "y_zero_point", "B"};
  auto dtype_error = [&](size_t i, const std::string& want) {
    return ctx.fail(std::string(kNames[i]) + " has dtype " + dtype_name(ctx.dtype(i)) + "; expected " + want);
  };
  for (size_t i : {kQcX, kQcW, kQcYZero}) {
    if (!is_8bit(ctx.dtype(i))) return dtype_error(i, "i8 or u8");
  }
  if (ctx.dtype(kQcXZero) != ctx.dtype(kQcX)) return dtype_error(kQcXZero, "x's");
  if (ctx.dtype(kQcWZero) != ctx.dtype(kQcW)) return dtype_error(kQcWZero, "w's");
  for (size_t i : {kQcXScale, kQcWScale, kQcYScale}) {
    if (ctx.dtype(i) != DType::F32) return dtype_error(i, "f32");
  }
  if (ctx.has_input(kQcBias) && ctx.dtype(kQcBias) != DType::I32) return dtype_error(kQcBias, "i32");
  for (size_t i : {kQcXScale, kQcXZero, kQcYScale, kQcYZero}) {
    if (shape_numel(ctx.shape(i)) != 1) {
      return ctx.fail(std::string(kNames[i]) + " has shape " + shape_to_string(ctx.shape(i)) +
                      "; expected one value (per-tensor quantisation)");
    }
  }
  for (size_t i : {kQcWScale, kQcWZero}) {
    const int64_t n = shape_numel(ctx.shape(i));
    if (ctx.rank(i) > 1 || (n != 1 && n != out_channels)) {
      return ctx.fail(std::string(kNames[i]) + " has shape " + shape_to_string(ctx.shape(i)) +
                      "; expected one value or one per output channel (" + std::to_string(out_channels) + ")");
    }
  }
  if (ctx.has_input(kQcBias) && ctx.shape(kQcBias) != Shape{out_channels}) {
    return ctx.fail("bias B has shape " + shape_to_string(ctx.shape(kQcBias)) + ", expected [" +
                    std::to_string(out_channels) + "]");
  }
  return check_residual(ctx, y_shape);
}

Result<QLinearConvParams> read_qlinear_conv_params(const std::vector<const Tensor*>& inputs, int64_t out_channels) {
  const auto in = [&](size_t i) -> const Tensor& { return *inputs[i]; };
  QLinearConvParams p;
  p.x_scale = in(kQcXScale).data<float>()[0];
  p.y_scale = in(kQcYScale).data<float>()[0];
  p.x_zero = int8_element(in(kQcXZero), 0);
  p.y_zero = int8_element(in(kQcYZero), 0);
  p.y_dtype = in(kQcYZero).dtype();
  const Tensor& ws = in(kQcWScale);
  const Tensor& wz = in(kQcWZero);
  for (int64_t m = 0; m < out_channels; ++m) {
    p.w_scale.push_back(ws.data<float>()[ws.numel() == 1 ? 0 : m]);
    p.w_zero.push_back(int8_element(wz, wz.numel() == 1 ? 0 : m));
  }
  if (inputs.size() > kQcResidual && inputs[kQcResidual]) {
    p.residual = true;
    p.r_scale = in(kQcResidualScale).data<float>()[0];
    p.r_zero = int8_element(in(kQcResidualZero), 0);
  }
  MOTE_RETURN_IF_ERROR(check_qlinear_scale("x_scale", p.x_scale));
  MOTE_RETURN_IF_ERROR(check_qlinear_scale("y_scale", p.y_scale));
  for (float s : p.w_scale) MOTE_RETURN_IF_ERROR(check_qlinear_scale("w_scale", s));
  if (p.residual) MOTE_RETURN_IF_ERROR(check_qlinear_scale("the residual's scale", p.r_scale));
  return p;
}

namespace {

Status infer_qlinear_conv(ShapeContext& ctx) {
  auto g = resolve_conv(attrs<fb::ConvAttrsT>(ctx.op), ctx.shape(kQcX), ctx.shape(kQcW));
  if (!g.ok()) return ctx.fail(g.status().message());
  MOTE_RETURN_IF_ERROR(check_qlinear_conv_inputs(ctx, g->out_channels, g->output_shape()));
  ctx.set_output(0, ctx.dtype(kQcYZero), g->output_shape());
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(QLinearConv, {.min_inputs = 8, .max_inputs = 12, .infer = mote::infer_qlinear_conv});
