// DynamicQuantizeLinear (ONNX opset 11): an f32 tensor quantised to uint8
// with parameters computed from its own range, per run:
//   y_scale = (max(0, max x) - min(0, min x)) / 255,
//   y_zero_point = saturate(round_half_even(-min(0, min x) / y_scale)),
//   y = saturate(round_half_even(x / y_scale) + y_zero_point).
// NaNs are left out of the range and quantise to 0; a range of 0 (all x
// zero) gives y_scale 1 and y_zero_point 0, as onnxruntime does (the
// definition would divide by 0), and so does an infinite range (x holding
// an infinity, or a span past f32's largest value).
#pragma once

#include <cstdint>

namespace mote {

struct DynamicQuantizeParams {
  float scale = 1.0f;
  int32_t zero = 0;
};

// The parameters for a range [lo, hi] of x (NaNs left out; lo > hi when x
// has no other value).
DynamicQuantizeParams dynamic_quantize_params(float lo, float hi);

}  // namespace mote
