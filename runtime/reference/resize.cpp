// Reference Resize: per output element, the source coordinate on every axis;
// nearest copies the rounded input element, linear sums the 2^rank corners
// around the coordinate with products of their weights (8-bit codes: the
// sum rounded half to even and saturated, resize_runs_on_codes), cubic the
// 4^rank taps likewise, in double. tf_crop_and_resize samples inside the roi and
// writes extrapolation_value where the coordinate leaves the input.
// antialias widens the linear or cubic filter when downsampling. The CPU
// backend runs cubic, antialias and tf_crop_and_resize through this kernel.
#include "runtime/ops/resize.hpp"

#include <algorithm>
#include <cmath>

#include "runtime/core/kernel.hpp"
#include "runtime/ops/quantize.hpp"
#include "runtime/ops/value_inputs.hpp"
#include "runtime/reference/element_index.hpp"

namespace mote::reference {
namespace {

// The cubic sum around `coordinate`: taps outside the input take the edge
// element, or with exclude_outside weigh nothing (the rest renormalised).
double cubic_sum(const Tensor& in, const std::vector<double>& coordinate, const fb::ResizeAttrsT& a) {
  const size_t rank = coordinate.size();
  std::vector<CubicTaps> taps(rank);
  for (size_t k = 0; k < rank; ++k) {
    taps[k] = resize_cubic_taps(coordinate[k], a.cubic_coeff_a);
    if (!a.exclude_outside) continue;
    double total = 0;
    for (int t = 0; t < 4; ++t) {
      const int64_t at = taps[k].first + t;
      if (at < 0 || at >= in.shape()[k]) taps[k].weight[t] = 0;
      total += taps[k].weight[t];
    }
    for (double& w : taps[k].weight) w /= total;
  }
  std::vector<int64_t> index(rank);
  double sum = 0;
  for (uint64_t corner = 0; corner < (uint64_t{1} << (2 * rank)); ++corner) {
    double weight = 1;
    for (size_t k = 0; k < rank; ++k) {
      const int t = static_cast<int>((corner >> (2 * k)) & 3);
      index[k] = std::clamp<int64_t>(taps[k].first + t, 0, in.shape()[k] - 1);
      weight *= taps[k].weight[t];
    }
    if (weight != 0) sum += weight * in.data<float>()[ravel_index(index, in.shape())];
  }
  return sum;
}

// The antialiased sum (resize_antialias_taps per axis; every axis in the
// product, those at scale 1 reduce to plain linear or cubic).
double antialias_sum(const Tensor& in, const std::vector<double>& coordinate, const std::vector<ResizeAxis>& axes,
                     const fb::ResizeAttrsT& a) {
  const size_t rank = coordinate.size();
  std::vector<ResizeTaps> taps(rank);
  for (size_t k = 0; k < rank; ++k) {
    taps[k] = resize_antialias_taps(coordinate[k], axes[k].scale, a);
    if (!a.exclude_outside) continue;
    double total = 0;
    for (size_t t = 0; t < taps[k].weight.size(); ++t) {
      const int64_t at = taps[k].first + static_cast<int64_t>(t);
      if (at < 0 || at >= in.shape()[k]) taps[k].weight[t] = 0;
      total += taps[k].weight[t];
    }
    for (double& w : taps[k].weight) w /= total == 0 ? 1 : total;
  }
  std::vector<size_t> tap(rank, 0);
  std::vector<int64_t> index(rank);
  double sum = 0;
  while (true) {
    double weight = 1;
    for (size_t k = 0; k < rank; ++k) {
      index[k] = std::clamp<int64_t>(taps[k].first + static_cast<int64_t>(tap[k]), 0, in.shape()[k] - 1);
      weight *= taps[k].weight[tap[k]];
    }
    if (weight != 0) sum += weight * in.data<float>()[ravel_index(index, in.shape())];
    size_t k = 0;
    while (k < rank && ++tap[k] == taps[k].weight.size()) tap[k++] = 0;
    if (k == rank) break;
  }
  return sum;
}

Status resize(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  const auto& a = attrs<fb::ResizeAttrsT>(ctx.op);
  if (Status s = check_resize_valid(a); !s.ok()) return Status(s.code(), ctx.fail(s.message()).message());
  const bool codes = is_8bit(in.dtype());
  if (a.mode != fb::ResizeMode::Nearest && in.dtype() != DType::F32 && !(codes && resize_runs_on_codes(a))) {
    return Status(StatusCode::kUnsupported, ctx.fail("linear and cubic modes need f32 (or 8-bit) data").message());
  }
  const bool crop = a.coordinate_transformation_mode == fb::CoordinateTransform::TfCropAndResize;
  const float* roi = crop ? ctx.in(1).data<float>() : nullptr;
  auto axes = resize_axes(in.shape(), optional_input(ctx, 2), optional_input(ctx, 3));
  if (!axes.ok()) return ctx.fail(axes.status().message());
  const size_t rank = axes->size();

  std::vector<int64_t> index;
  std::vector<double> coordinate(rank);
  for (int64_t i = 0; i < out.numel(); ++i) {
    unravel_index(i, out.shape(), index);
    bool outside = false;
    for (size_t k = 0; k < rank; ++k) {
      if (crop) {
        coordinate[k] = resize_crop_coordinate(index[k], (*axes)[k], roi[k], roi[rank + k]);
        outside = outside || coordinate[k] < 0 || coordinate[k] > static_cast<double>(in.shape()[k] - 1);
      } else {
        coordinate[k] = resize_source_coordinate(a.coordinate_transformation_mode, index[k], (*axes)[k]);
      }
    }
    if (outside) {
      Tensor fill = Tensor::from_vector<float>({1}, {a.extrapolation_value});
      if (in.dtype() == DType::F32) copy_element_at(fill, 0, out, i);
      continue;
    }
    if (a.mode == fb::ResizeMode::Nearest) {
      for (size_t k = 0; k < rank; ++k) index[k] = resize_nearest_index(a.nearest_mode, coordinate[k], in.shape()[k]);
      copy_element_at(in, ravel_index(index, in.shape()), out, i);
      continue;
    }
    if (a.antialias) {
      out.data<float>()[i] = static_cast<float>(antialias_sum(in, coordinate, *axes, a));
      continue;
    }
    if (a.mode == fb::ResizeMode::Cubic) {
      out.data<float>()[i] = static_cast<float>(cubic_sum(in, coordinate, a));
      continue;
    }
    double sum = 0;
    for (uint64_t corner = 0; corner < (uint64_t{1} << rank); ++corner) {
      double weight = 1;
      for (size_t k = 0; k < rank; ++k) {
        const LinearTap tap = resize_linear_tap(coordinate[k], in.shape()[k]);
        const bool upper = (corner >> k) & 1;
        index[k] = upper ? tap.upper : tap.lower;
        weight *= upper ? tap.upper_weight : 1 - tap.upper_weight;
      }
      const int64_t at = ravel_index(index, in.shape());
      sum += weight * (codes ? int8_element(in, at) : in.data<float>()[at]);
    }
    if (codes) {
      const bool is_signed = in.dtype() == DType::I8;
      const double q = std::clamp(std::nearbyint(sum), is_signed ? -128.0 : 0.0, is_signed ? 127.0 : 255.0);
      static_cast<uint8_t*>(out.raw())[i] = static_cast<uint8_t>(static_cast<int32_t>(q));
    } else {
      out.data<float>()[i] = static_cast<float>(sum);
    }
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Resize, mote::reference::resize);
