// Resize: what its shape function and kernels share, the per-axis geometry
// and ONNX's coordinate rules.
#pragma once

#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

// One axis of a resize.
struct ResizeAxis {
  int64_t in = 0;
  int64_t out = 0;
  // The scale of the coordinate transform: 'scales' as given, or out / in
  // when 'sizes' decide the output.
  double scale = 1;
  // in * scale: what the ONNX reference calls output_width, which differs
  // from `out` (its floor) when the scale is given and not exact.
  double resized_length = 0;
};

// What the optimised kernels support: nearest (any rounding) and linear;
// every coordinate transform but tf_crop_and_resize. The error
// (kUnsupported) names the rest.
Status check_resize_supported(const fb::ResizeAttrsT& attrs);
// What the reference kernel supports: the above, cubic, and
// tf_crop_and_resize (with the roi input, float data).
Status check_resize_valid(const fb::ResizeAttrsT& attrs);

// Whether Resize runs on 8-bit codes (an int8 model's resampling between
// quantised ops, Y keeping X's scale and zero point): nearest copies them;
// linear without antialias interpolates them, Y = saturate(
// round_half_even(sum of corner weights * codes)). The weights sum to 1, so
// that is the interpolation of the real values requantised at the same
// scale, but for exact ties when the zero point z is odd: requantising
// rounds the sum less z, so e.g. a midpoint 1.5 of codes {1, 2} with z = 1
// gives 1 there and 2 here (one code). Not with tf_crop_and_resize (its
// outside points take a float value) or cubic.
bool resize_runs_on_codes(const fb::ResizeAttrsT& attrs);

// Cubic mode: the four input indices around a coordinate (unclamped: the
// caller clamps to the edge, or drops outside taps with exclude_outside)
// and their weights, ONNX's cubic convolution with coefficient `a`.
struct CubicTaps {
  int64_t first;  // the taps are first .. first + 3
  double weight[4];
};
CubicTaps resize_cubic_taps(double coordinate, double a);

// tf_crop_and_resize: the input coordinate of output `x` inside the roi
// [start, end] (fractions of the input's extent).
// Taps of an antialiased linear or cubic resize on one axis: elements
// first, first + 1... with these weights (summing to 1), before clamping
// to the input or exclude_outside.
struct ResizeTaps {
  int64_t first = 0;
  std::vector<double> weight;
};
ResizeTaps resize_antialias_taps(double coordinate, double scale, const fb::ResizeAttrsT& attrs);

double resize_crop_coordinate(int64_t x, const ResizeAxis& axis, double start, double end);

// Per-axis geometry from 'scales' (f32, one per axis, > 0) or 'sizes' (i64,
// one per axis); exactly one of them must be given (an empty tensor counts as
// omitted, as ONNX exporters write it).
Result<std::vector<ResizeAxis>> resize_axes(const Shape& in, const Tensor* scales, const Tensor* sizes);

// The input coordinate that output coordinate `x` samples; it may lie
// outside [0, in - 1], where kernels clamp.
double resize_source_coordinate(fb::CoordinateTransform mode, int64_t x, const ResizeAxis& axis);

// Nearest mode: the input index, rounded as `mode` says and clamped.
int64_t resize_nearest_index(fb::NearestMode mode, double coordinate, int64_t in);

// Linear mode: the two input indices around a coordinate (clamped, so both
// are the edge outside the input) and the weight of the upper one.
struct LinearTap {
  int64_t lower;
  int64_t upper;
  double upper_weight;
};
LinearTap resize_linear_tap(double coordinate, int64_t in);

}  // namespace mote
