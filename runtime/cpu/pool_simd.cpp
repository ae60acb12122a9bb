// SIMD bodies of pool_simd.hpp, compiled once per instruction set by
// Highway's foreach_target.h; the HWY_ONCE section dispatches at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/pool_simd.cpp"
#include "hwy/foreach_target.h"  // must come before highway.h

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "hwy/highway.h"
#include "runtime/cpu/pool_simd.hpp"
#include "runtime/cpu/simd_store-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// The max or sum of a vector's taps, folded into `acc`. A max is NaN where
// any tap is: plain Max leaves that to the instruction set (x86's returns
// one operand), so the NaNs are tracked in a mask beside it, two cheap
// operations a tap where choosing between Max and a NaN-propagating Add
// after each tap took five (on AVX2, whose comparisons give vectors, not
// mask registers: SqueezeNet's 3x3 stride-2 pools were compute-bound on
// it). Free functions over locals, not a class: SVE's vectors and masks
// are sizeless and cannot be members.
template <bool kMax>
HWY_INLINE void AddTap(V& acc, hn::Mask<D>& nan, V x) {
  if constexpr (kMax) {
    acc = hn::Max(acc, x);
    nan = hn::Or(nan, hn::IsNaN(x));
  } else {
    (void)nan;
    acc = hn::Add(acc, x);
  }
}

template <bool kMax>
HWY_INLINE V TapsResult(D d, V acc, hn::Mask<D> nan) {
  if constexpr (!kMax) return acc;
  return hn::IfThenElse(nan, hn::Set(d, std::numeric_limits<float>::quiet_NaN()), acc);
}

template <bool kMax>
inline float FoldScalar(float acc, float x) {
  if constexpr (kMax) return std::isnan(acc) || std::isnan(x) ? acc + x : (x > acc ? x : acc);
  return acc + x;
}

template <bool kMax>
void CombineRowsT(const float* const* rows, size_t count, size_t n, float* HWY_RESTRICT out) {
  const D d;
  const size_t N = hn::Lanes(d);
  const float identity = kMax ? -std::numeric_limits<float>::infinity() : 0.0f;
  if (count == 0) {
    for (size_t i = 0; i < n; ++i) out[i] = identity;
    return;
  }
  size_t i = 0;
  for (; i + N <= n; i += N) {
    V acc = hn::LoadU(d, rows[0] + i);
    auto nan = hn::IsNaN(acc);
    for (size_t r = 1; r < count; ++r) AddTap<kMax>(acc, nan, hn::LoadU(d, rows[r] + i));
    hn::StoreU(TapsResult<kMax>(d, acc, nan), d, out + i);
  }
  if (i < n && n >= N) {
    // The tail as one more vector ending at n, overlapping the last one
    // (recomputing equal values): rows of 111 or 55 floats would otherwise
    // spend as long in scalar tails as in vectors.
    i = n - N;
    V acc = hn::LoadU(d, rows[0] + i);
    auto nan = hn::IsNaN(acc);
    for (size_t r = 1; r < count; ++r) AddTap<kMax>(acc, nan, hn::LoadU(d, rows[r] + i));
    hn::StoreU(TapsResult<kMax>(d, acc, nan), d, out + i);
    return;
  }
  for (; i < n; ++i) {
    float acc = rows[0][i];
    for (size_t r = 1; r < count; ++r) acc = FoldScalar<kMax>(acc, rows[r][i]);
    out[i] = acc;
  }
}

void CombineRows(bool is_max, const float* const* rows, int64_t count, int64_t n, float* out) {
  if (is_max) {
    CombineRowsT<true>(rows, static_cast<size_t>(count), static_cast<size_t>(n), out);
  } else {
    CombineRowsT<false>(rows, static_cast<size_t>(count), static_cast<size_t>(n), out);
  }
}

// The taps of N consecutive outputs starting at x.
template <bool kMax>
HWY_INLINE V WindowVector(D d, const float* in, size_t x, size_t kernel, size_t stride, size_t dilation) {
  if (stride == 1) {
    V acc = hn::LoadU(d, in + x);
    auto nan = hn::IsNaN(acc);
    for (size_t k = 1; k < kernel; ++k) AddTap<kMax>(acc, nan, hn::LoadU(d, in + x + k * dilation));
    return TapsResult<kMax>(d, acc, nan);
  }
  // Stride 2: a de-interleaving load yields the even elements (this tap) and
  // the odd ones, which are the next tap when taps are adjacent.
  const float* base = in + 2 * x;
  V even, odd;
  hn::LoadInterleaved2(d, base, even, odd);
  V acc = even;
  auto nan = hn::IsNaN(acc);
  size_t k = 1;
  if (dilation == 1) {
    if (kernel > 1) AddTap<kMax>(acc, nan, odd);
    for (k = 2; k < kernel; k += 2) {
      hn::LoadInterleaved2(d, base + k, even, odd);
      AddTap<kMax>(acc, nan, even);
      if (k + 1 < kernel) AddTap<kMax>(acc, nan, odd);
    }
    return TapsResult<kMax>(d, acc, nan);
  }
  for (; k < kernel; ++k) {
    hn::LoadInterleaved2(d, base + k * dilation, even, odd);
    AddTap<kMax>(acc, nan, even);
  }
  return TapsResult<kMax>(d, acc, nan);
}

template <bool kMax>
void WindowRowT(const float* HWY_RESTRICT in, size_t out_n, size_t kernel, size_t stride, size_t dilation,
                const float* HWY_RESTRICT scale, float* HWY_RESTRICT out) {
  const D d;
  const size_t N = hn::Lanes(d);
  size_t x = 0;
  if (stride <= 2) {
    for (; x + N <= out_n; x += N) {
      V acc = WindowVector<kMax>(d, in, x, kernel, stride, dilation);
      if (!kMax) acc = hn::Mul(acc, hn::LoadU(d, scale + x));
      hn::StoreU(acc, d, out + x);
    }
    if (x < out_n && out_n >= N) {
      // The tail as an overlapping last vector, as in CombineRowsT.
      x = out_n - N;
      V acc = WindowVector<kMax>(d, in, x, kernel, stride, dilation);
      if (!kMax) acc = hn::Mul(acc, hn::LoadU(d, scale + x));
      hn::StoreU(acc, d, out + x);
      return;
    }
    if (x < out_n) {
      // A row shorter than a vector (13 outputs of SqueezeNet's last pool):
      // one vector, reading into `in`'s slack, its first out_n lanes stored.
      V acc = WindowVector<kMax>(d, in, 0, kernel, stride, dilation);
      if (!kMax) {
        HWY_ALIGN float scales[hn::MaxLanes(d)];
        std::fill(scales, scales + N, 0.0f);
        std::copy(scale, scale + out_n, scales);
        acc = hn::Mul(acc, hn::Load(d, scales));
      }
      simd_store::HWY_NAMESPACE::StoreFirstN(d, acc, out_n, out);
      return;
    }
  }
  for (; x < out_n; ++x) {
    const float* tap = in + x * stride;
    float acc = tap[0];
    for (size_t k = 1; k < kernel; ++k) acc = FoldScalar<kMax>(acc, tap[k * dilation]);
    out[x] = kMax ? acc : acc * scale[x];
  }
}

void WindowRow(bool is_max, const float* in, int64_t out_n, int64_t kernel, int64_t stride, int64_t dilation,
               const float* scale, float* out) {
  const size_t n = static_cast<size_t>(out_n), k = static_cast<size_t>(kernel);
  const size_t s = static_cast<size_t>(stride), dil = static_cast<size_t>(dilation);
  if (is_max) {
    WindowRowT<true>(in, n, k, s, dil, scale, out);
  } else {
    WindowRowT<false>(in, n, k, s, dil, scale, out);
  }
}

int64_t WindowRowSlack() { return 2 * static_cast<int64_t>(hn::Lanes(D())); }

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu::simd {

HWY_EXPORT(CombineRows);
HWY_EXPORT(WindowRow);
HWY_EXPORT(WindowRowSlack);

int64_t window_row_slack() { return HWY_DYNAMIC_DISPATCH(WindowRowSlack)(); }

void combine_rows(bool is_max, const float* const* rows, int64_t count, int64_t n, float* out) {
  HWY_DYNAMIC_DISPATCH(CombineRows)(is_max, rows, count, n, out);
}

void window_row(bool is_max, const float* in, int64_t out_n, int64_t kernel, int64_t stride, int64_t dilation,
                const float* scale, float* out) {
  HWY_DYNAMIC_DISPATCH(WindowRow)(is_max, in, out_n, kernel, stride, dilation, scale, out);
}

}  // namespace mote::cpu::simd
#endif  // HWY_ONCE
