// SIMD bodies of pool_simd.hpp, compiled once per instruction set by
// Highway's foreach_target.h; the HWY_ONCE section dispatches at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/pool_simd.cpp"
#include "runtime/cpu/pool_simd.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <vector>

#include "hwy/foreach_target.h"  // must come before highway.h
#include "hwy/highway.h"
#include "runtime/cpu/simd_store-inl.h"
#include "runtime/ops/pool.hpp"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class T>
constexpr bool kIsFloat = std::numeric_limits<T>::has_quiet_NaN;

// A max is NaN where any tap is: plain Max leaves that to the instruction
// set (x86's returns one operand), so the NaNs are tracked in a mask beside
// it, two cheap operations a tap where choosing between Max and a
// NaN-propagating Add after each tap took five (on AVX2, whose comparisons
// give vectors, not mask registers: SqueezeNet's 3x3 stride-2 pools were
// compute-bound on it). Integers have no NaN and skip the mask, and so do
// float rows checked to hold none (kNaNs false, HasNaN): the mask
// operations were then the limit (vfpclassps and korw at 20 % of a 5x5
// stride-1 pool in perf). Free functions over locals, not a class: SVE's
// vectors and masks are sizeless and cannot be members.
template <bool kNaNs, class D>
HWY_INLINE hn::Mask<D> FirstNaNs(D d, hn::Vec<D> x) {
  if constexpr (kNaNs && kIsFloat<hn::TFromD<D>>) {
    (void)d;
    return hn::IsNaN(x);
  } else {
    (void)x;
    return hn::FirstN(d, 0);
  }
}

template <bool kMax, bool kNaNs, class D>
HWY_INLINE void AddTap(D /* tag */, hn::Vec<D>& acc, hn::Mask<D>& nan, hn::Vec<D> x) {
  if constexpr (kMax) {
    acc = hn::Max(acc, x);
    if constexpr (kNaNs && kIsFloat<hn::TFromD<D>>) nan = hn::Or(nan, hn::IsNaN(x));
  } else {
    (void)nan;
    acc = hn::Add(acc, x);
  }
}

template <bool kMax, bool kNaNs, class D>
HWY_INLINE hn::Vec<D> TapsResult(D d, hn::Vec<D> acc, hn::Mask<D> nan) {
  using T = hn::TFromD<D>;
  if constexpr (kMax && kNaNs && kIsFloat<T>) {
    return hn::IfThenElse(nan, hn::Set(d, std::numeric_limits<T>::quiet_NaN()), acc);
  } else {
    (void)d;
    (void)nan;
    return acc;
  }
}

template <bool kMax, class T>
inline T FoldScalar(T acc, T x) {
  if constexpr (!kMax) return acc + x;
  if constexpr (kIsFloat<T>) {
    if (std::isnan(acc) || std::isnan(x)) return acc + x;
  }
  return x > acc ? x : acc;
}

// out[i] = max or sum over r < count (at least 1) of rows[r][i], for i < n.
// kCount, when not 0, is `count` known at compile time (the rows of a 3-high
// window: an unrolled loop).
template <bool kMax, bool kNaNs, size_t kCount = 0, class T>
HWY_INLINE void CombineRows(const T* const* rows, size_t count, size_t n, T* HWY_RESTRICT out) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const size_t rows_count = kCount ? kCount : count;
  const auto combine = [&](size_t i) {
    auto acc = hn::LoadU(d, rows[0] + i);
    auto nan = FirstNaNs<kNaNs>(d, acc);
    for (size_t r = 1; r < rows_count; ++r) AddTap<kMax, kNaNs>(d, acc, nan, hn::LoadU(d, rows[r] + i));
    hn::StoreU(TapsResult<kMax, kNaNs>(d, acc, nan), d, out + i);
  };
  size_t i = 0;
  for (; i + N <= n; i += N) combine(i);
  if (i < n && n >= N) {
    // The tail as one more vector ending at n, overlapping the last one
    // (recomputing equal values): rows of 111 or 55 floats would otherwise
    // spend as long in scalar tails as in vectors.
    combine(n - N);
    return;
  }
  for (; i < n; ++i) {
    T acc = rows[0][i];
    for (size_t r = 1; r < rows_count; ++r) acc = FoldScalar<kMax>(acc, rows[r][i]);
    out[i] = acc;
  }
}

// The taps of N consecutive outputs starting at x.
template <bool kMax, bool kNaNs, class D>
HWY_INLINE hn::Vec<D> WindowVector(D d, const hn::TFromD<D>* in, size_t x, size_t kernel, size_t stride,
                                   size_t dilation) {
  if (stride == 1) {
    auto acc = hn::LoadU(d, in + x);
    auto nan = FirstNaNs<kNaNs>(d, acc);
    for (size_t k = 1; k < kernel; ++k) AddTap<kMax, kNaNs>(d, acc, nan, hn::LoadU(d, in + x + k * dilation));
    return TapsResult<kMax, kNaNs>(d, acc, nan);
  }
  // Stride 2: a de-interleaving load yields the even elements (this tap) and
  // the odd ones, which are the next tap when taps are adjacent.
  const auto* base = in + 2 * x;
  hn::Vec<D> even, odd;
  hn::LoadInterleaved2(d, base, even, odd);
  auto acc = even;
  auto nan = FirstNaNs<kNaNs>(d, acc);
  size_t k = 1;
  if (dilation == 1) {
    if (kernel > 1) AddTap<kMax, kNaNs>(d, acc, nan, odd);
    for (k = 2; k < kernel; k += 2) {
      hn::LoadInterleaved2(d, base + k, even, odd);
      AddTap<kMax, kNaNs>(d, acc, nan, even);
      if (k + 1 < kernel) AddTap<kMax, kNaNs>(d, acc, nan, odd);
    }
    return TapsResult<kMax, kNaNs>(d, acc, nan);
  }
  for (; k < kernel; ++k) {
    hn::LoadInterleaved2(d, base + k * dilation, even, odd);
    AddTap<kMax, kNaNs>(d, acc, nan, even);
  }
  return TapsResult<kMax, kNaNs>(d, acc, nan);
}

// The max of taps 2x, 2x + 1 and 2x + 2 for N consecutive outputs x from
// `x0` (3-wide windows at stride 2, dilation 1: the pools of most CNNs): two
// vectors of the row split into even and odd elements, and the evens of the
// same two vectors a pair of elements on. Three shuffles, where two
// de-interleaving loads take four.
template <bool kNaNs, class D>
HWY_INLINE hn::Vec<D> Window3Stride2(D d, const hn::TFromD<D>* in, size_t x0) {
#if HWY_TARGET == HWY_SCALAR
  return WindowVector<true, kNaNs>(d, in, x0, 3, 2, 1);  // one lane: nothing to shuffle
#else
  const size_t N = hn::Lanes(d);
  const auto* base = in + 2 * x0;
  const auto lo = hn::LoadU(d, base), hi = hn::LoadU(d, base + N);
  auto acc = hn::ConcatEven(d, hi, lo);
  auto nan = FirstNaNs<kNaNs>(d, acc);
  AddTap<true, kNaNs>(d, acc, nan, hn::ConcatOdd(d, hi, lo));
  AddTap<true, kNaNs>(d, acc, nan, hn::ConcatEven(d, hn::LoadU(d, base + N + 2), hn::LoadU(d, base + 2)));
  return TapsResult<true, kNaNs>(d, acc, nan);
#endif
}

// Columns a row of Direct3x3Stride2Row reads: [0, Direct3x3Stride2Reach).
template <class T>
size_t Direct3x3Stride2Reach(size_t out_n) {
  const size_t N = hn::Lanes(hn::ScalableTag<T>());
  return 2 * std::max(out_n, N) + N;
}

#if HWY_TARGET != HWY_SCALAR
// Where the taps' NaNs are accounted for in Direct3x3Stride2Row. kExact
// tracks them per lane beside the max (AddTap). kOptimistic takes plain
// maxima and only notes whether any value it loaded was NaN, in a vector of
// integer maxima of the values' magnitude bits (two integer operations a
// load, where the mask registers of kExact's per-tap tracking made them the
// bottleneck on AVX-512: korw at 20 % of a 111-wide pool in perf); a row
// that saw a NaN is computed again exactly.
enum class NaNMode { kExact, kOptimistic };

// The max of rows r0..r2 at columns [at, at + N), NaN where any is
// (kExact); kOptimistic raises `largest_magnitude` to the loaded values'
// magnitude bits.
template <NaNMode kMode, class D, class VI>
HWY_INLINE hn::Vec<D> ColumnMax3(D d, const float* HWY_RESTRICT r0, const float* HWY_RESTRICT r1,
                                 const float* HWY_RESTRICT r2, size_t at, VI& largest_magnitude) {
  const auto a = hn::LoadU(d, r0 + at), b = hn::LoadU(d, r1 + at), c = hn::LoadU(d, r2 + at);
  if constexpr (kMode == NaNMode::kExact) {
    auto acc = a;
    auto nan = FirstNaNs<true>(d, acc);
    AddTap<true, true>(d, acc, nan, b);
    AddTap<true, true>(d, acc, nan, c);
    return TapsResult<true, true>(d, acc, nan);
  } else {
    const hn::RebindToSigned<D> di;
    const auto magnitude = [&](hn::Vec<D> v)
                               HWY_ATTR { return hn::And(hn::BitCast(di, v), hn::Set(di, 0x7fffffff)); };
    largest_magnitude = hn::Max(largest_magnitude, hn::Max(magnitude(a), hn::Max(magnitude(b), magnitude(c))));
    return hn::Max(a, hn::Max(b, c));
  }
}

// N outputs of 3-wide stride-2 windows over the column maxima lo, hi (the
// window columns' first 2N) and next (whose first lane is column 2N): the
// evens, the odds, and the evens one lane on, which is the evens rotated
// down a lane (`rotate`) with next's first lane (`first`, broadcast) in the
// `last` lane. (Highway's CombineShiftRightLanes shifts within 128-bit
// blocks.)
template <NaNMode kMode, class D, class I, class M>
HWY_INLINE hn::Vec<D> Window3Stride2Of(D d, hn::Vec<D> lo, hn::Vec<D> hi, hn::Vec<D> next, I rotate, I first,
                                       M last) {
  const auto even = hn::ConcatEven(d, hi, lo), odd = hn::ConcatOdd(d, hi, lo);
  const auto even_on = hn::IfThenElse(last, hn::TableLookupLanes(next, first), hn::TableLookupLanes(even, rotate));
  if constexpr (kMode == NaNMode::kOptimistic) {
    return hn::Max(even, hn::Max(odd, even_on));
  } else {
    auto acc = even;
    auto nan = FirstNaNs<true>(d, acc);
    AddTap<true, true>(d, acc, nan, odd);
    AddTap<true, true>(d, acc, nan, even_on);
    return TapsResult<true, true>(d, acc, nan);
  }
}

// out[x] = max of rows r0..r2 over columns 2x .. 2x + 2, for x < out_n: a
// 3x3 stride-2 max pool's output row whose windows all lie in the input
// (no left padding, none past the right edge), read straight from the input
// rows, each vector's column maxima reused by the next. The scratch row of
// the general path (CombineRows, then WindowRow) cost a stalled load per
// vector, its reads two columns on straddling two of its stores, which the
// store buffer cannot forward (perf: 35 % of a 27-wide pool at the first
// loads after the stores). Reads Direct3x3Stride2Reach columns: into the
// following rows, whose values only reach lanes that are not stored, so the
// caller checks that they lie in the tensor. Floats only: the lane
// rotation takes 32-bit lanes. kOptimistic returns whether the row must be
// computed again by kExact (it loaded a NaN, maybe one of the following
// rows' that no output reads).
template <NaNMode kMode>
HWY_INLINE bool Direct3x3Stride2Row(const float* r0, const float* r1, const float* r2, size_t out_n,
                                    float* HWY_RESTRICT out) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const hn::RebindToSigned<decltype(d)> di;
  // Lane i reads lane i + 1 (the last lane wraps; it is replaced).
  const auto next_lane = hn::Iota(di, 1);
  const auto rotate =
      hn::IndicesFromVec(d, hn::IfThenElseZero(hn::Lt(next_lane, hn::Set(di, static_cast<int32_t>(N))), next_lane));
  const auto first = hn::IndicesFromVec(d, hn::Zero(di));
  const auto last = hn::Not(hn::FirstN(d, N - 1));
  auto largest_magnitude = hn::Zero(di);
  const auto at = [&](size_t column) HWY_ATTR { return ColumnMax3<kMode>(d, r0, r1, r2, column, largest_magnitude); };
  const auto window = [&](hn::Vec<decltype(d)> lo, hn::Vec<decltype(d)> hi, hn::Vec<decltype(d)> next)
                          HWY_ATTR { return Window3Stride2Of<kMode>(d, lo, hi, next, rotate, first, last); };
  if (out_n < N) {
    const auto acc = window(at(0), at(N), at(2 * N));
    simd_store::HWY_NAMESPACE::StoreFirstN(d, acc, out_n, out);
  } else {
    size_t x = 0;
    auto lo = at(0);
    for (; x + N <= out_n; x += N) {
      const auto hi = at(2 * x + N), next = at(2 * x + 2 * N);
      hn::StoreU(window(lo, hi, next), d, out + x);
      lo = next;
    }
    if (x < out_n) {
      const size_t tail = out_n - N;
      hn::StoreU(window(at(2 * tail), at(2 * tail + N), at(2 * tail + 2 * N)), d, out + tail);
    }
  }
  // A NaN's magnitude bits exceed infinity's.
  return kMode == NaNMode::kOptimistic && !hn::AllFalse(di, hn::Gt(largest_magnitude, hn::Set(di, 0x7f800000)));
}

// The max of columns 0 and 1 of three rows, NaN where any is.
inline float MaxOfFirstTwoColumns(const float* r0, const float* r1, const float* r2) {
  float m = r0[0];
  for (const float x : {r0[1], r1[0], r1[1], r2[0], r2[1]}) m = std::isnan(x) || x > m ? x : m;
  return m;
}
#endif

// The elements WindowRow may read past the last tap: a vector's worth of
// outputs at stride 2.
template <class T>
size_t WindowRowSlack() {
  return 2 * hn::Lanes(hn::ScalableTag<T>());
}

// out[x] = max or sum over k < kernel of in[x * stride + k * dilation], for
// x < out_n; sums are then multiplied by scale[x]. `in` must be readable up
// to element (out_n - 1) * stride + (kernel - 1) * dilation + stride, and
// WindowRowSlack beyond.
template <bool kMax, bool kNaNs, class T>
HWY_INLINE void WindowRow(const T* HWY_RESTRICT in, size_t out_n, size_t kernel, size_t stride, size_t dilation,
                          const float* HWY_RESTRICT scale, T* HWY_RESTRICT out) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const bool three_stride_two = HWY_TARGET != HWY_SCALAR && kMax && kernel == 3 && stride == 2 && dilation == 1;
  const auto window = [&](size_t x) {
    if constexpr (kMax) {
      if (three_stride_two) return Window3Stride2<kNaNs>(d, in, x);
    }
    auto acc = WindowVector<kMax, kNaNs>(d, in, x, kernel, stride, dilation);
    if constexpr (!kMax) acc = hn::Mul(acc, hn::LoadU(d, scale + x));
    return acc;
  };
  size_t x = 0;
  if (stride <= 2) {
    for (; x + N <= out_n; x += N) hn::StoreU(window(x), d, out + x);
    if (x < out_n && out_n >= N) {
      // The tail as an overlapping last vector, as in CombineRows.
      hn::StoreU(window(out_n - N), d, out + out_n - N);
      return;
    }
    if (x < out_n) {
      // A row shorter than a vector (13 outputs of SqueezeNet's last pool):
      // one vector, reading into `in`'s slack, its first out_n lanes stored.
      auto acc = [&] {
        if constexpr (kMax) {
          if (three_stride_two) return Window3Stride2<kNaNs>(d, in, 0);
        }
        return WindowVector<kMax, kNaNs>(d, in, 0, kernel, stride, dilation);
      }();
      if constexpr (!kMax) {
        HWY_ALIGN T scales[hn::MaxLanes(d)];
        std::fill(scales, scales + N, T{0});
        std::copy(scale, scale + out_n, scales);
        acc = hn::Mul(acc, hn::Load(d, scales));
      }
      simd_store::HWY_NAMESPACE::StoreFirstN(d, acc, out_n, out);
      return;
    }
  }
  for (; x < out_n; ++x) {
    const T* tap = in + x * stride;
    T acc = tap[0];
    for (size_t k = 1; k < kernel; ++k) acc = FoldScalar<kMax>(acc, tap[k * dilation]);
    if constexpr (kMax) {
      out[x] = acc;
    } else {
      out[x] = acc * scale[x];
    }
  }
}

// Whether any of the n floats at x is NaN: one pass over a plane's rows,
// against a mask operation per tap for every window that reads them.
bool HasNaN(const float* x, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  auto nan = hn::FirstN(d, 0);
  size_t i = 0;
  for (; i + N <= n; i += N) nan = hn::Or(nan, hn::IsNaN(hn::LoadU(d, x + i)));
  // The tail as one more vector ending at n, when there is one before it.
  if (i < n && n >= N) nan = hn::Or(nan, hn::IsNaN(hn::LoadU(d, x + n - N)));
  if (!hn::AllFalse(d, nan)) return true;
  for (; n < N && i < n; ++i) {
    if (std::isnan(x[i])) return true;
  }
  return false;
}

template <bool kMax, class T>
void PoolRowsT(const PoolRows& p, const T* in, T* out, int64_t begin, int64_t end) {
  const int64_t in_d = p.in[0], in_h = p.in[1], in_w = p.in[2];
  const int64_t out_d = p.out[0], out_h = p.out[1], out_w = p.out[2];
  const int64_t rows_per_plane = out_d * out_h;
  // The scratch row holds input columns [-pad_begin, ...): padding and
  // anything past the input stay at the identity (-inf or lowest / 0).
  const int64_t taps_extent = (out_w - 1) * p.stride[2] + (p.kernel[2] - 1) * p.dilation[2] + 1;
  const int64_t scratch_size = std::max(taps_extent, p.pad_begin[2] + in_w) + p.stride[2] +
                               static_cast<int64_t>(WindowRowSlack<T>());
  std::vector<T> scratch(static_cast<size_t>(scratch_size), kMax ? max_pool_identity<T>() : T{0});
  T* row_out = scratch.data() + p.pad_begin[2];
  std::vector<float> scale(kMax ? 0 : static_cast<size_t>(out_w));
  int64_t scale_row_count = -1;  // the window rows `scale` holds the divisors of
  // Max over floats: whether the rows of the current plane this call reads
  // hold a NaN, checked once when the call comes to the plane (only its
  // rows: the calls of one large plane split between threads would each
  // check all of it; row by row as the windows came to them was slower,
  // 0.130 -> 0.144 ms for SPPF's 5x5 pool over 256 planes of 20 x 20).
  // Sums and integers need no check.
  bool seen_nan = false;
  int64_t checked_plane = -1;
  // At most one row per input row a window spans: kernels may be far larger
  // than the input (SAME padding), and a model file chooses them.
  std::vector<const T*> rows(static_cast<size_t>(std::min(p.kernel[0], in_d) * std::min(p.kernel[1], in_h)));
  // 3x3 stride-2 max windows of floats inside the rows (SqueezeNet's pools)
  // read the input rows directly (Direct3x3Stride2Row), within the planes of this
  // call's rows; so do those with a column of padding on the left (ResNet's,
  // 112x112 to 56x56: 0.398 -> 0.284 ms per op in ResNet-18 at 1 thread),
  // all but the first output, whose window is the first two columns.
  [[maybe_unused]] const int64_t left = p.pad_begin[2];
  [[maybe_unused]] const bool direct =
      HWY_TARGET != HWY_SCALAR && kMax && std::is_same_v<T, float> && p.kernel[2] == 3 && p.stride[2] == 2 &&
      p.dilation[2] == 1 &&
      ((left == 0 && 2 * (out_w - 1) + 3 <= in_w) || (left == 1 && out_w >= 2 && 2 * out_w <= in_w));
  [[maybe_unused]] const size_t direct_reach = Direct3x3Stride2Reach<T>(static_cast<size_t>(out_w));
  [[maybe_unused]] const T* planes_end = in + ((end - 1) / rows_per_plane + 1) * in_d * in_h * in_w;
  // Task t is output row oh of depth od of plane `plane`.
  int64_t plane = begin / rows_per_plane, od = begin % rows_per_plane / out_h, oh = begin % out_h;
  for (int64_t task = begin; task < end; ++task, ++oh) {
    if (oh == out_h) {
      oh = 0;
      if (++od == out_d) {
        od = 0;
        ++plane;
      }
    }
    const T* plane_in = in + plane * in_d * in_h * in_w;
    size_t count = 0;
    int64_t last_row = 0;  // the last of them, in the plane's depth x height rows
    for (int64_t kd = 0; kd < p.kernel[0]; ++kd) {
      const int64_t id = od * p.stride[0] - p.pad_begin[0] + kd * p.dilation[0];
      if (id < 0 || id >= in_d) continue;
      for (int64_t kh = 0; kh < p.kernel[1]; ++kh) {
        const int64_t ih = oh * p.stride[1] - p.pad_begin[1] + kh * p.dilation[1];
        if (ih < 0 || ih >= in_h) continue;
        last_row = id * in_h + ih;
        rows[count++] = plane_in + last_row * in_w;
      }
    }
    T* dst = out + task * out_w;
    if (count == 0) {
      // Every window of this row lies in the padding (possible with dilation).
      std::fill(dst, dst + out_w, kMax ? max_pool_identity<T>() : T{0});
      continue;
    }
    // The rows the next output row adds, fetched while this one combines:
    // the input (a layer's output, past L2) came from L3 at about a third
    // of the bandwidth with the hardware prefetchers alone.
    for (int64_t s = 1; s <= p.stride[1] && last_row + s < in_d * in_h; ++s) {
      const char* next = reinterpret_cast<const char*>(rows[count - 1] + s * in_w);
      for (int64_t b = 0; b < in_w * static_cast<int64_t>(sizeof(T)); b += 64) __builtin_prefetch(next + b);
    }
#if HWY_TARGET != HWY_SCALAR
    // Fewer than 3 rows (next to the padding above or below) repeat one:
    // a max is the same.
    const T* r0 = rows[0];
    const T* r1 = rows[std::min<size_t>(1, count - 1)];
    const T* r2 = rows[std::min<size_t>(2, count - 1)];
    const auto reaches = [&](const T* row) {
      return planes_end - (row + left) >= static_cast<std::ptrdiff_t>(direct_reach);
    };
    if (direct && count <= 3 && reaches(r0) && reaches(r1) && reaches(r2)) {
      if constexpr (std::is_same_v<T, float>) {
        if (left == 1) dst[0] = MaxOfFirstTwoColumns(r0, r1, r2);
        const size_t n = static_cast<size_t>(out_w - left);
        if (Direct3x3Stride2Row<NaNMode::kOptimistic>(r0 + left, r1 + left, r2 + left, n, dst + left)) {
          Direct3x3Stride2Row<NaNMode::kExact>(r0 + left, r1 + left, r2 + left, n, dst + left);
        }
        continue;
      }
    }
#endif
    if constexpr (kMax && kIsFloat<T>) {
      if (plane != checked_plane) {
        checked_plane = plane;
        // 2-D: the input rows the call's output rows in this plane read;
        // 3-D pools check the whole plane.
        int64_t lo = 0, hi = in_d * in_h;
        if (out_d == 1) {
          const int64_t last_oh = std::min(out_h, oh + (end - task)) - 1;
          lo = std::max<int64_t>(0, oh * p.stride[1] - p.pad_begin[1]);
          hi = std::min(in_h, last_oh * p.stride[1] - p.pad_begin[1] + (p.kernel[1] - 1) * p.dilation[1] + 1);
        }
        seen_nan = hi > lo && HasNaN(plane_in + lo * in_w, static_cast<size_t>((hi - lo) * in_w));
      }
    }
    const bool nans = seen_nan;
    if (count == 3) {
      nans ? CombineRows<kMax, true, 3>(rows.data(), count, static_cast<size_t>(in_w), row_out)
           : CombineRows<kMax, false, 3>(rows.data(), count, static_cast<size_t>(in_w), row_out);
    } else {
      nans ? CombineRows<kMax, true>(rows.data(), count, static_cast<size_t>(in_w), row_out)
           : CombineRows<kMax, false>(rows.data(), count, static_cast<size_t>(in_w), row_out);
    }
    if constexpr (!kMax) {
      // The divisors of a row differ from the last row's only where its
      // windows cover another number of rows (next to the padding): a
      // division per output took 40 % of a 3x3 stride-1 pool's time.
      const int64_t row_count = p.counts[0][od] * p.counts[1][oh];
      if (row_count != scale_row_count) {
        scale_row_count = row_count;
        for (int64_t ow = 0; ow < out_w; ++ow) {
          const int64_t c = row_count * p.counts[2][ow];
          scale[static_cast<size_t>(ow)] = c ? 1.0f / static_cast<float>(c) : 0.0f;
        }
      }
    }
    const size_t kernel_w = static_cast<size_t>(p.kernel[2]), stride_w = static_cast<size_t>(p.stride[2]),
                 dilation_w = static_cast<size_t>(p.dilation[2]);
    nans ? WindowRow<kMax, true>(scratch.data(), static_cast<size_t>(out_w), kernel_w, stride_w, dilation_w,
                                 scale.data(), dst)
         : WindowRow<kMax, false>(scratch.data(), static_cast<size_t>(out_w), kernel_w, stride_w, dilation_w,
                                  scale.data(), dst);
  }
}

void PoolRowsF32(const PoolRows& p, bool is_max, const float* in, float* out, int64_t begin, int64_t end) {
  if (is_max) {
    PoolRowsT<true>(p, in, out, begin, end);
  } else {
    PoolRowsT<false>(p, in, out, begin, end);
  }
}
void MaxPoolRowsU8(const PoolRows& p, const uint8_t* in, uint8_t* out, int64_t begin, int64_t end) {
  PoolRowsT<true>(p, in, out, begin, end);
}
void MaxPoolRowsI8(const PoolRows& p, const int8_t* in, int8_t* out, int64_t begin, int64_t end) {
  PoolRowsT<true>(p, in, out, begin, end);
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu::simd {

HWY_EXPORT(PoolRowsF32);
HWY_EXPORT(MaxPoolRowsU8);
HWY_EXPORT(MaxPoolRowsI8);

void pool_rows(const PoolRows& p, bool is_max, const float* in, float* out, int64_t begin, int64_t end) {
  HWY_DYNAMIC_DISPATCH(PoolRowsF32)(p, is_max, in, out, begin, end);
}
void max_pool_rows(const PoolRows& p, const uint8_t* in, uint8_t* out, int64_t begin, int64_t end) {
  HWY_DYNAMIC_DISPATCH(MaxPoolRowsU8)(p, in, out, begin, end);
}
void max_pool_rows(const PoolRows& p, const int8_t* in, int8_t* out, int64_t begin, int64_t end) {
  HWY_DYNAMIC_DISPATCH(MaxPoolRowsI8)(p, in, out, begin, end);
}

}  // namespace mote::cpu::simd
#endif  // HWY_ONCE
