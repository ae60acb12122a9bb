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

// The supported modes: nearest (any rounding) and linear; every coordinate
// transform but tf_crop_and_resize. The error (kUnsupported) names the rest.
Status check_resize_supported(const fb::ResizeAttrsT& attrs);

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
