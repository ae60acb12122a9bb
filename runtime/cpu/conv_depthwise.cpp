// SIMD body of conv_depthwise.hpp, compiled once per instruction set by
// Highway's foreach_target.h; depthwise_plane() picks one at run time.
//
// The input plane is copied once into a zero-padded buffer, so the main loop
// is plain vector loads (de-interleaving ones for stride 2) with no bounds
// checks, computing up to four output vectors of a row at a time. (Measured
// alternatives, aligned per-tap row copies and two output rows per block,
// were no faster on AVX-512 and slower on small planes.)
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/conv_depthwise.cpp"
#include "hwy/foreach_target.h"  // must come before highway.h

#include <algorithm>
#include <cstring>

#include "hwy/highway.h"
#include "runtime/cpu/conv_depthwise.hpp"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// Input values at columns c, c + kStride, ... for consecutive output columns.
template <int kStride>
HWY_INLINE V LoadColumns(D d, const float* HWY_RESTRICT p) {
  if constexpr (kStride == 1) {
    return hn::LoadU(d, p);
  } else {
    V even, odd;
    hn::LoadInterleaved2(d, p, even, odd);
    return even;
  }
}

// Output vectors computed together: each weight is broadcast once per block
// and the independent accumulators hide the multiply-add latency.
constexpr int kBlock = 4;

// Clamps one output vector and stores the first `valid - first` of its
// lanes at out + first (at most a whole vector).
HWY_INLINE void StoreClamped(D d, V acc, V lo, V hi, float* HWY_RESTRICT out, int64_t first, int64_t valid) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const V result = hn::Min(hn::Max(acc, lo), hi);
  if (first + lanes <= valid) {
    hn::StoreU(result, d, out + first);
  } else {
    // The partial last vector goes through the stack: no store past the row.
    HWY_ALIGN float tail[hn::MaxLanes(d)];
    hn::Store(result, d, tail);
    std::copy(tail, tail + (valid - first), out + first);
  }
}

// Computes kCount (<= kBlock) output vectors starting at output column ow of
// the row whose top-left input is `base` (in the padded plane), clamps them
// and stores the first `valid` outputs at `out`. The accumulators are named
// variables, not an array: scalable vectors (SVE) cannot be array elements,
// and unused ones cost nothing.
template <int kStride, int kCount>
HWY_INLINE void Block(D d, const DepthwiseShape& s, const float* HWY_RESTRICT base, int64_t padded_w,
                      const float* HWY_RESTRICT w, float bias, float* HWY_RESTRICT out, int64_t valid) {
  static_assert(kCount >= 1 && kCount <= kBlock);
  const int64_t step = static_cast<int64_t>(hn::Lanes(d)) * kStride;
  V acc0 = hn::Set(d, bias), acc1 = acc0, acc2 = acc0, acc3 = acc0;
  for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
    const float* row = base + kh * s.dilation_h * padded_w;
    for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
      const V wv = hn::Set(d, w[kh * s.kernel_w + kw]);
      const float* p = row + kw * s.dilation_w;
      acc0 = hn::MulAdd(LoadColumns<kStride>(d, p), wv, acc0);
      if constexpr (kCount > 1) acc1 = hn::MulAdd(LoadColumns<kStride>(d, p + step), wv, acc1);
      if constexpr (kCount > 2) acc2 = hn::MulAdd(LoadColumns<kStride>(d, p + 2 * step), wv, acc2);
      if constexpr (kCount > 3) acc3 = hn::MulAdd(LoadColumns<kStride>(d, p + 3 * step), wv, acc3);
    }
  }
  const V lo = hn::Set(d, s.clamp_min);
  const V hi = hn::Set(d, s.clamp_max);
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  StoreClamped(d, acc0, lo, hi, out, 0, valid);
  if constexpr (kCount > 1) StoreClamped(d, acc1, lo, hi, out, lanes, valid);
  if constexpr (kCount > 2) StoreClamped(d, acc2, lo, hi, out, 2 * lanes, valid);
  if constexpr (kCount > 3) StoreClamped(d, acc3, lo, hi, out, 3 * lanes, valid);
}

template <int kStride>
void Plane(const DepthwiseShape& s, const float* padded, int64_t padded_w, const float* HWY_RESTRICT w, float bias,
           float* HWY_RESTRICT y) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t oh = 0; oh < s.out_h; ++oh) {
    const float* base = padded + oh * s.stride_h * padded_w;
    float* out = y + oh * s.out_w;
    for (int64_t ow = 0; ow < s.out_w; ow += kBlock * lanes) {
      const int64_t valid = std::min<int64_t>(kBlock * lanes, s.out_w - ow);
      const float* in = base + ow * kStride;
      switch ((valid + lanes - 1) / lanes) {
        case 1: Block<kStride, 1>(d, s, in, padded_w, w, bias, out + ow, valid); break;
        case 2: Block<kStride, 2>(d, s, in, padded_w, w, bias, out + ow, valid); break;
        case 3: Block<kStride, 3>(d, s, in, padded_w, w, bias, out + ow, valid); break;
        default: Block<kStride, kBlock>(d, s, in, padded_w, w, bias, out + ow, valid); break;
      }
    }
  }
}

// Copies the input plane into `scratch` with zeros around it: every load of
// Plane() then falls inside the buffer, including the last partial vector.
void DepthwisePlane(const DepthwiseShape& s, const float* x, const float* w, float bias, float* y,
                    std::vector<float>& scratch) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t out_w_vectors = (s.out_w + lanes - 1) / lanes * lanes;
  const int64_t padded_w =
      std::max(s.pad_left + s.in_w, out_w_vectors * s.stride_w + (s.kernel_w - 1) * s.dilation_w);
  const int64_t padded_h =
      std::max(s.pad_top + s.in_h, (s.out_h - 1) * s.stride_h + (s.kernel_h - 1) * s.dilation_h + 1);
  scratch.resize(static_cast<size_t>(padded_h * padded_w));
  float* padded = scratch.data();
  // Whole rows of padding, then input rows with their left and right margins.
  std::fill(padded, padded + s.pad_top * padded_w, 0.0f);
  for (int64_t r = 0; r < s.in_h; ++r) {
    float* row = padded + (s.pad_top + r) * padded_w;
    std::fill(row, row + s.pad_left, 0.0f);
    std::memcpy(row + s.pad_left, x + r * s.in_w, static_cast<size_t>(s.in_w) * sizeof(float));
    std::fill(row + s.pad_left + s.in_w, row + padded_w, 0.0f);
  }
  std::fill(padded + (s.pad_top + s.in_h) * padded_w, padded + padded_h * padded_w, 0.0f);

  if (s.stride_w == 1) {
    Plane<1>(s, padded, padded_w, w, bias, y);
  } else {
    Plane<2>(s, padded, padded_w, w, bias, y);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu {

HWY_EXPORT(DepthwisePlane);

void depthwise_plane(const DepthwiseShape& s, const float* x, const float* w, float bias, float* y,
                     std::vector<float>& scratch) {
  HWY_DYNAMIC_DISPATCH(DepthwisePlane)(s, x, w, bias, y, scratch);
}

}  // namespace mote::cpu
#endif  // HWY_ONCE
