// QLinearConv's quantisation parameters (ONNX's inputs 1, 2, 4, 5, 6, 7),
// checked and read once for the shape function and the kernels alike.
//   real x = x_scale * (x - x_zero_point), per tensor;
//   real w = w_scale[m] * (w - w_zero_point[m]), per tensor or per output
//   channel m;
//   y = saturate(round_half_even(acc * x_scale * w_scale[m] / y_scale) + y_zero_point),
//   acc the int32 sum of the shifted products plus the i32 bias.
#pragma once

#include <cstdint>
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
};

struct QLinearConvParams {
  float x_scale = 1.0f, y_scale = 1.0f;
  int32_t x_zero = 0, y_zero = 0;
  // One per output channel (a per-tensor value repeated).
  std::vector<float> w_scale;
  std::vector<int32_t> w_zero;
  DType y_dtype = DType::U8;
};

// Dtypes and parameter shapes, for the shape function (out_channels: W's
// first dimension).
Status check_qlinear_conv_inputs(ShapeContext& ctx, int64_t out_channels);

// The parameters' values; the shape function has checked their shapes.
Result<QLinearConvParams> read_qlinear_conv_params(const KernelContext& ctx, int64_t out_channels);

}  // namespace mote
