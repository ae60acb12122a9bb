// Optimised Resize. Nearest: per-axis source tables into copy_axis_mapped.
// Linear: separable, one pass per resized axis (linear interpolation over
// several axes is the product of 1-D ones): an outer axis blends whole
// contiguous rows, the innermost gathers along each row; both in SIMD.
// Linear on 8-bit codes (resize_runs_on_codes) widens them to floats for
// the same passes and rounds the result back.
#include "runtime/ops/resize.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/core/kernel.hpp"
#include "runtime/core/registry.hpp"
#include "runtime/cpu/axis_map_copy.hpp"
#include "runtime/cpu/resize_simd.hpp"
#include "runtime/cpu/strided_copy.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/quantize.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote::cpu {
namespace {

// The linear taps of one axis, in the types the SIMD loops take.
struct AxisTaps {
  std::vector<int32_t> lower;
  std::vector<int32_t> upper;
  std::vector<float> weight;
  bool identity = true;  // every output index reads its own input index
};

AxisTaps linear_taps(const fb::ResizeAttrsT& a, const ResizeAxis& axis) {
  AxisTaps taps;
  for (int64_t x = 0; x < axis.out; ++x) {
    const LinearTap tap = resize_linear_tap(resize_source_coordinate(a.coordinate_transformation_mode, x, axis), axis.in);
    taps.lower.push_back(static_cast<int32_t>(tap.lower));
    taps.upper.push_back(static_cast<int32_t>(tap.upper));
    taps.weight.push_back(static_cast<float>(tap.upper_weight));
    taps.identity = taps.identity && tap.lower == x && (tap.upper_weight == 0 || tap.upper == tap.lower);
  }
  taps.identity = taps.identity && axis.out == axis.in;
  return taps;
}

// One pass along `axis` from `src` of shape `shape` into `dst`; updates
// `shape`.
void linear_pass(const float* src, float* dst, Shape& shape, size_t axis, const AxisTaps& taps, ThreadPool& pool) {
  const int64_t in_len = shape[axis];
  const int64_t out_len = static_cast<int64_t>(taps.lower.size());
  int64_t outer = 1, inner = 1;
  for (size_t k = 0; k < axis; ++k) outer *= shape[k];
  for (size_t k = axis + 1; k < shape.size(); ++k) inner *= shape[k];
  shape[axis] = out_len;
  if (inner == 1) {
    const int64_t grain = std::max<int64_t>(1, kMinBytesPerTask / static_cast<int64_t>(sizeof(float) * out_len));
    pool.parallel_for(outer, grain, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        simd::lerp_gather(src + o * in_len, taps.lower.data(), taps.upper.data(), taps.weight.data(),
                          dst + o * out_len, out_len);
      }
    });
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kMinBytesPerTask / static_cast<int64_t>(sizeof(float) * inner));
  pool.parallel_for(outer * out_len, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t o = r / out_len, j = r % out_len;
      const float* block = src + o * in_len * inner;
      simd::lerp_rows(block + taps.lower[static_cast<size_t>(j)] * inner, block + taps.upper[static_cast<size_t>(j)] * inner,
                      taps.weight[static_cast<size_t>(j)], dst + r * inner, inner);
    }
  });
}

// 8-bit codes as floats, for the float passes (exact: every code is).
std::vector<float> widen_codes(const Tensor& t) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = static_cast<float>(int8_element(t, i));
  return v;
}

// Interpolated codes rounded half to even and saturated into `out`'s type
// (resize_runs_on_codes). The passes' f32 sums may differ from the
// reference's double ones in the last bits: one code apart at a near-tie.
void round_to_codes(const std::vector<float>& v, Tensor& out) {
  const bool is_signed = out.dtype() == DType::I8;
  const float lo = is_signed ? -128.0f : 0.0f, hi = is_signed ? 127.0f : 255.0f;
  auto* y = static_cast<uint8_t*>(out.raw());
  for (size_t i = 0; i < v.size(); ++i) {
    y[i] = static_cast<uint8_t>(static_cast<int32_t>(std::nearbyint(std::clamp(v[i], lo, hi))));
  }
}

Status resize_linear(KernelContext& ctx, const std::vector<ResizeAxis>& axes) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  const bool codes = is_8bit(in.dtype());
  if (in.dtype() != DType::F32 && !codes) {
    return Status(StatusCode::kUnsupported, ctx.fail("linear mode needs f32 or 8-bit data").message());
  }
  const auto& a = attrs<fb::ResizeAttrsT>(ctx.op);
  std::vector<size_t> resized;
  std::vector<AxisTaps> taps(axes.size());
  for (size_t k = 0; k < axes.size(); ++k) {
    if (axes[k].in > std::numeric_limits<int32_t>::max()) return ctx.fail("axis too long for linear resize");
    taps[k] = linear_taps(a, axes[k]);
    if (!taps[k].identity) resized.push_back(k);
  }
  if (resized.empty()) {
    copy_contiguous(in.raw(), out.raw(), in.bytes(), *ctx.pool);
    return {};
  }
  // Passes alternate between two scratch buffers; the last writes the
  // output (8-bit codes: a float buffer, rounded into the output after).
  std::vector<float> scratch[2], widened, interpolated;
  const float* src = codes ? (widened = widen_codes(in), widened.data()) : in.data<float>();
  if (codes) interpolated.resize(static_cast<size_t>(out.numel()));
  Shape shape = in.shape();
  for (size_t p = 0; p < resized.size(); ++p) {
    float* dst = codes ? interpolated.data() : out.data<float>();
    if (p + 1 < resized.size()) {
      Shape next = shape;
      next[resized[p]] = axes[resized[p]].out;
      scratch[p % 2].resize(static_cast<size_t>(shape_numel(next)));
      dst = scratch[p % 2].data();
    }
    linear_pass(src, dst, shape, resized[p], taps[resized[p]], *ctx.pool);
    src = dst;
  }
  if (codes) round_to_codes(interpolated, out);
  return {};
}

Status resize(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  const auto& a = attrs<fb::ResizeAttrsT>(ctx.op);
  // Cubic and tf_crop_and_resize are rare in models: the reference loops
  // serve them.
  if (!check_resize_supported(a).ok() && check_resize_valid(a).ok()) {
    return find_reference_kernel(fb::OpType::Resize)->run(ctx);
  }
  if (Status s = check_resize_supported(a); !s.ok()) return Status(s.code(), ctx.fail(s.message()).message());
  auto axes = resize_axes(in.shape(), optional_input(ctx, 2), optional_input(ctx, 3));
  if (!axes.ok()) return ctx.fail(axes.status().message());
  if (out.numel() == 0) return {};
  if (a.mode == fb::ResizeMode::Linear) return resize_linear(ctx, *axes);

  std::vector<std::vector<int64_t>> maps(axes->size());
  for (size_t k = 0; k < maps.size(); ++k) {
    const ResizeAxis& axis = (*axes)[k];
    for (int64_t x = 0; x < axis.out; ++x) {
      const double coordinate = resize_source_coordinate(a.coordinate_transformation_mode, x, axis);
      maps[k].push_back(resize_nearest_index(a.nearest_mode, coordinate, axis.in));
    }
  }
  copy_axis_mapped(in.raw(), in.shape(), out.raw(), out.shape(), dtype_size(in.dtype()), maps, nullptr, *ctx.pool);
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(Resize, mote::cpu::resize);
