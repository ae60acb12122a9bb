// QLinearConv's quantisation parameters (ONNX's inputs 1, 2, 4, 5, 6, 7),
// checked and read once for the shape function and the kernels alike.
//   real x = x_scale * (x - x_zero_point), per tensor;
//   real w = w_scale[m] * (w - w_zero_point[m]), per tensor or per output
//   channel m;
//   y = saturate(round_half_even(acc * x_scale * w_scale[m] / y_scale) + y_zero_point),
//   acc the int32 sum of the shifted products plus the i32 bias.
// Mote's extension, written by `mote-convert --quantize int8` for a
// convolution with a fused residual Add (ResNet's blocks, MobileNetV2's
// projections): inputs 9-11 are a quantised residual R of Y's shape with
// its own scale and zero point, added to the real value before the fused
// activation and the requantisation:
//   y = saturate(round_half_even(act(acc * x_scale * w_scale[m]
//                                    + r_scale * (r - r_zero_point)) / y_scale) + y_zero_point).
// One rounding, and no float tensor between two int8 convolutions.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/core/op_def.hpp"
#include "runtime/ops/quantize.hpp"

namespace mote {

// Input positions, ONNX's order.
enum QLinearConvInput : size_t {
  kQcX = 0, kQcXScale = 1, kQcXZero = 2, kQcW = 3, kQcWScale = 4, kQcWZero = 5,
  kQcYScale = 6, kQcYZero = 7, kQcBias = 8,
  kQcResidual = 9, kQcResidualScale = 10, kQcResidualZero = 11,  // Mote's extension
};

struct QLinearConvParams {
  float x_scale = 1.0f, y_scale = 1.0f;
  int32_t x_zero = 0, y_zero = 0;
  // One per output channel (a per-tensor value repeated).
  std::vector<float> w_scale;
  std::vector<int32_t> w_zero;
  DType y_dtype = DType::U8;
  // The fused residual's parameters, when the op has one.
  bool residual = false;
  float r_scale = 1.0f;
  int32_t r_zero = 0;
};

// Dtypes and parameter shapes, for the shape function (out_channels: W's
// first dimension; y_shape: the convolution's output shape).
Status check_qlinear_conv_inputs(ShapeContext& ctx, int64_t out_channels, const Shape& y_shape);

// The parameters' values; the shape function has checked their shapes.
// `inputs` are the op's (null where omitted), their parameters with host
// data: a kernel's, or a Vulkan plan's when they are constants.
// A scale QLinearConv can requantise with: finite and above 0. Its kernels
// refuse any other (read_qlinear_conv_params), and the converter folds a QDQ
// Conv into QLinearConv only with such scales (converters/common/fold_qdq.cpp).
inline bool usable_qlinear_scale(double scale) { return std::isfinite(scale) && scale > 0; }

// An error naming the scale unless it is usable: scales divide and multiply
// into the requantisation, whose result is converted to int32 (a NaN there
// is undefined behaviour), and a scale of 0 or below has no meaning. Only a
// damaged or hand-made model has one. (QLinearMatMul's too.)
inline Status check_qlinear_scale(const std::string& name, float scale) {
  if (usable_qlinear_scale(scale)) return {};
  return invalid_argument(name + " is " + std::to_string(scale) + "; scales must be finite and above 0");
}

Result<QLinearConvParams> read_qlinear_conv_params(const std::vector<const Tensor*>& inputs, int64_t out_channels);
inline Result<QLinearConvParams> read_qlinear_conv_params(const KernelContext& ctx, int64_t out_channels) {
  return read_qlinear_conv_params(ctx.inputs, out_channels);
}

}  // namespace mote
