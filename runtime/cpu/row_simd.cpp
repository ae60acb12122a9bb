// SIMD bodies of row_simd.hpp. Highway's foreach_target.h compiles this file
// once per instruction set (SSE4, AVX2, AVX-512...); the HWY_ONCE section at
// the end holds the plain C++ entry points that pick one at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/row_simd.cpp"
#include "hwy/foreach_target.h"  // must come before highway.h

#include <cmath>
#include <cstddef>
#include <limits>

#include "hwy/highway.h"
#include "runtime/cpu/row_simd.hpp"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// Sums add at most this many elements in float before the partial result is
// added to a double total.
constexpr size_t kSumBlock = 4096;

template <RowOp kOp>
constexpr float Identity() {
  if constexpr (kOp == RowOp::kMax) return -std::numeric_limits<float>::infinity();
  if constexpr (kOp == RowOp::kMin) return std::numeric_limits<float>::infinity();
  if constexpr (kOp == RowOp::kProd) return 1.0f;
  return 0.0f;
}

// NaN wins over any number; a + b is NaN whenever either is, whatever the
// other (even an infinity), which the instruction set's max/min do not promise.
HWY_INLINE V PropagateNaN(V a, V b, V result) {
  return hn::IfThenElse(hn::Or(hn::IsNaN(a), hn::IsNaN(b)), hn::Add(a, b), result);
}

// Folds element vector x into accumulator acc.
template <RowOp kOp>
HWY_INLINE V Fold(V acc, V x) {
  if constexpr (kOp == RowOp::kSum) return hn::Add(acc, x);
  if constexpr (kOp == RowOp::kSumSquares) return hn::MulAdd(x, x, acc);
  if constexpr (kOp == RowOp::kMax) return PropagateNaN(acc, x, hn::Max(acc, x));
  if constexpr (kOp == RowOp::kMin) return PropagateNaN(acc, x, hn::Min(acc, x));
  return hn::Mul(acc, x);
}

// Combines two accumulators (squares were already taken).
template <RowOp kOp>
HWY_INLINE V Merge(V a, V b) {
  return Fold < kOp == RowOp::kSumSquares ? RowOp::kSum : kOp > (a, b);
}

template <RowOp kOp>
inline float FoldScalar(float acc, float x) {
  if constexpr (kOp == RowOp::kSum) return acc + x;
  if constexpr (kOp == RowOp::kSumSquares) return acc + x * x;
  if constexpr (kOp == RowOp::kMax) return std::isnan(acc) || std::isnan(x) ? acc + x : (x > acc ? x : acc);
  if constexpr (kOp == RowOp::kMin) return std::isnan(acc) || std::isnan(x) ? acc + x : (x < acc ? x : acc);
  return acc * x;
}

template <RowOp kOp>
inline float MergeScalar(float a, float b) {
  return FoldScalar < kOp == RowOp::kSumSquares ? RowOp::kSum : kOp > (a, b);
}

template <RowOp kOp>
HWY_INLINE float ReduceLanes(D d, V v) {
  float lanes[HWY_MAX_BYTES / sizeof(float)];
  hn::StoreU(v, d, lanes);
  float r = Identity<kOp>();
  for (size_t j = 0; j < hn::Lanes(d); ++j) r = MergeScalar<kOp>(r, lanes[j]);
  return r;
}

// Four independent accumulators: they hide the add latency and, for sums,
// split the error over 4 * lanes partial sums.
template <RowOp kOp>
float ReduceSpan(const float* HWY_RESTRICT x, size_t n) {
  const D d;
  const size_t N = hn::Lanes(d);
  V a0 = hn::Set(d, Identity<kOp>());
  V a1 = a0, a2 = a0, a3 = a0;
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    a0 = Fold<kOp>(a0, hn::LoadU(d, x + i));
    a1 = Fold<kOp>(a1, hn::LoadU(d, x + i + N));
    a2 = Fold<kOp>(a2, hn::LoadU(d, x + i + 2 * N));
    a3 = Fold<kOp>(a3, hn::LoadU(d, x + i + 3 * N));
  }
  for (; i + N <= n; i += N) a0 = Fold<kOp>(a0, hn::LoadU(d, x + i));
  float r = ReduceLanes<kOp>(d, Merge<kOp>(Merge<kOp>(a0, a1), Merge<kOp>(a2, a3)));
  for (; i < n; ++i) r = FoldScalar<kOp>(r, x[i]);
  return r;
}

template <RowOp kOp>
float ReduceRowT(const float* x, size_t n) {
  if constexpr (kOp == RowOp::kSum || kOp == RowOp::kSumSquares) {
    double total = 0.0;
    for (size_t begin = 0; begin < n; begin += kSumBlock) {
      total += ReduceSpan<kOp>(x + begin, n - begin < kSumBlock ? n - begin : kSumBlock);
    }
    return static_cast<float>(total);
  } else {
    return ReduceSpan<kOp>(x, n);
  }
}

float ReduceRow(RowOp op, const float* x, int64_t n) {
  const size_t count = static_cast<size_t>(n);
  switch (op) {
    case RowOp::kSum: return ReduceRowT<RowOp::kSum>(x, count);
    case RowOp::kSumSquares: return ReduceRowT<RowOp::kSumSquares>(x, count);
    case RowOp::kMax: return ReduceRowT<RowOp::kMax>(x, count);
    case RowOp::kMin: return ReduceRowT<RowOp::kMin>(x, count);
    case RowOp::kProd: return ReduceRowT<RowOp::kProd>(x, count);
  }
  return 0.0f;
}

template <RowOp kOp>
void AccumulateRowT(float* HWY_RESTRICT acc, const float* HWY_RESTRICT row, size_t n) {
  const D d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(Fold<kOp>(hn::LoadU(d, acc + i), hn::LoadU(d, row + i)), d, acc + i);
  for (; i < n; ++i) acc[i] = FoldScalar<kOp>(acc[i], row[i]);
}

void AccumulateRow(RowOp op, float* acc, const float* row, int64_t n) {
  const size_t count = static_cast<size_t>(n);
  switch (op) {
    case RowOp::kSum: return AccumulateRowT<RowOp::kSum>(acc, row, count);
    case RowOp::kSumSquares: return AccumulateRowT<RowOp::kSumSquares>(acc, row, count);
    case RowOp::kMax: return AccumulateRowT<RowOp::kMax>(acc, row, count);
    case RowOp::kMin: return AccumulateRowT<RowOp::kMin>(acc, row, count);
    case RowOp::kProd: return AccumulateRowT<RowOp::kProd>(acc, row, count);
  }
}

float SumSquaredDeviationSpan(const float* HWY_RESTRICT x, size_t n, float mean) {
  const D d;
  const size_t N = hn::Lanes(d);
  const V m = hn::Set(d, mean);
  V a0 = hn::Zero(d), a1 = a0;
  size_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    const V e0 = hn::Sub(hn::LoadU(d, x + i), m);
    const V e1 = hn::Sub(hn::LoadU(d, x + i + N), m);
    a0 = hn::MulAdd(e0, e0, a0);
    a1 = hn::MulAdd(e1, e1, a1);
  }
  for (; i + N <= n; i += N) {
    const V e = hn::Sub(hn::LoadU(d, x + i), m);
    a0 = hn::MulAdd(e, e, a0);
  }
  float r = hn::GetLane(hn::SumOfLanes(d, hn::Add(a0, a1)));
  for (; i < n; ++i) r += (x[i] - mean) * (x[i] - mean);
  return r;
}

float SumSquaredDeviation(const float* x, int64_t n, float mean) {
  const size_t count = static_cast<size_t>(n);
  double total = 0.0;
  for (size_t begin = 0; begin < count; begin += kSumBlock) {
    total += SumSquaredDeviationSpan(x + begin, count - begin < kSumBlock ? count - begin : kSumBlock, mean);
  }
  return static_cast<float>(total);
}

void ScaleShiftRow(const float* x, int64_t n, float a, float b, float* y) {
  const D d;
  const size_t N = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  const V va = hn::Set(d, a), vb = hn::Set(d, b);
  size_t i = 0;
  for (; i + N <= count; i += N) hn::StoreU(hn::MulAdd(hn::LoadU(d, x + i), va, vb), d, y + i);
  for (; i < count; ++i) y[i] = x[i] * a + b;
}

void NormalizeRow(const float* HWY_RESTRICT x, int64_t n, float mean, float inv_std, const float* HWY_RESTRICT scale,
                  const float* HWY_RESTRICT bias, float* HWY_RESTRICT y) {
  const D d;
  const size_t N = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  const V vm = hn::Set(d, mean), vs = hn::Set(d, inv_std);
  size_t i = 0;
  for (; i + N <= count; i += N) {
    const V normalized = hn::Mul(hn::Sub(hn::LoadU(d, x + i), vm), vs);
    const V b = bias ? hn::LoadU(d, bias + i) : hn::Zero(d);
    hn::StoreU(hn::MulAdd(normalized, hn::LoadU(d, scale + i), b), d, y + i);
  }
  for (; i < count; ++i) y[i] = (x[i] - mean) * inv_std * scale[i] + (bias ? bias[i] : 0.0f);
}

// Column sums of a rows x width matrix, a vector of columns at a time,
// accumulated in double: the sums a squeeze-and-excitation gate is computed
// from. (Float partial sums of 64 terms, as ReduceRowT keeps along a row,
// were within 1e-5 of these, and still moved EfficientNet-B0's logits by
// 2e-4 of their size: the network amplifies its gates' rounding.)
void ColumnSums(const float* HWY_RESTRICT x, int64_t rows, int64_t width, float* HWY_RESTRICT out) {
  int64_t j = 0;
#if HWY_TARGET != HWY_SCALAR
  const D d;
  const hn::Half<D> dh;
  const hn::Repartition<double, D> dd;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const int64_t half = static_cast<int64_t>(hn::Lanes(dd));
  for (; j + N <= width; j += N) {
    auto lo = hn::Zero(dd), hi = hn::Zero(dd);
    for (int64_t i = 0; i < rows; ++i) {
      const V v = hn::LoadU(d, x + i * width + j);
      lo = hn::Add(lo, hn::PromoteTo(dd, hn::LowerHalf(dh, v)));
      hi = hn::Add(hi, hn::PromoteTo(dd, hn::UpperHalf(dh, v)));
    }
    HWY_ALIGN double sums[HWY_LANES(double)];
    hn::Store(lo, dd, sums);
    for (int64_t l = 0; l < half; ++l) out[j + l] = static_cast<float>(sums[l]);
    hn::Store(hi, dd, sums);
    for (int64_t l = 0; l < half; ++l) out[j + half + l] = static_cast<float>(sums[l]);
  }
#endif
  for (; j < width; ++j) {
    double total = 0.0;
    for (int64_t i = 0; i < rows; ++i) total += x[i * width + j];
    out[j] = static_cast<float>(total);
  }
}

void MultiplyRow(const float* x, const float* s, int64_t n, float* y) {
  const D d;
  const size_t N = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  size_t i = 0;
  for (; i + N <= count; i += N) hn::StoreU(hn::Mul(hn::LoadU(d, x + i), hn::LoadU(d, s + i)), d, y + i);
  for (; i < count; ++i) y[i] = x[i] * s[i];
}

void CopyEverySecond(const float* HWY_RESTRICT src, int64_t n, float* HWY_RESTRICT dst) {
  const D d;
  const size_t N = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  size_t i = 0;
  // A de-interleaving load reads 2N floats, one past the last one used:
  // stop while that one is still inside the row.
  for (; i + N < count; i += N) {
    hn::Vec<D> even, odd;
    hn::LoadInterleaved2(d, src + 2 * i, even, odd);
    hn::StoreU(even, d, dst + i);
  }
  for (; i < count; ++i) dst[i] = src[2 * i];
}

void CopyEverySecondByte(const uint8_t* HWY_RESTRICT src, int64_t src_stride, int64_t n, int64_t rows, uint8_t add,
                         uint8_t* HWY_RESTRICT dst, int64_t dst_stride) {
  // 16 bytes a step: the phases' rows are short (ResNet's 7 to 112), and
  // what a step leaves goes byte by byte.
  const hn::CappedTag<uint8_t, 16> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const auto offset = hn::Set(d, add);
  for (int64_t r = 0; r < rows; ++r, src += src_stride, dst += dst_stride) {
    int64_t i = 0;
    for (; i + N < n; i += N) {  // as CopyEverySecond: the last odd byte read stays inside
      hn::Vec<decltype(d)> even, odd;
      hn::LoadInterleaved2(d, src + 2 * i, even, odd);
      hn::StoreU(hn::Add(even, offset), d, dst + i);
    }
    for (; i < n; ++i) dst[i] = static_cast<uint8_t>(src[2 * i] + add);
  }
}

void AddToBytes(const uint8_t* HWY_RESTRICT src, int64_t n, uint8_t add, uint8_t* HWY_RESTRICT dst) {
  const hn::ScalableTag<uint8_t> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const auto offset = hn::Set(d, add);
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::Add(hn::LoadU(d, src + i), offset), d, dst + i);
  for (; i < n; ++i) dst[i] = static_cast<uint8_t>(src[i] + add);
}

// Where in x the extreme value `target` sits: the first (or last) equal
// element, or NaN when target is NaN.
int64_t FindValue(const float* HWY_RESTRICT x, size_t n, float target, bool last) {
  const D d;
  const size_t N = hn::Lanes(d);
  const bool want_nan = std::isnan(target);
  const V t = hn::Set(d, target);
  auto matches = [&](size_t i) { return want_nan ? std::isnan(x[i]) : x[i] == target; };
  if (!last) {
    size_t i = 0;
    for (; i + N <= n; i += N) {
      const V v = hn::LoadU(d, x + i);
      const intptr_t pos = hn::FindFirstTrue(d, want_nan ? hn::IsNaN(v) : hn::Eq(v, t));
      if (pos >= 0) return static_cast<int64_t>(i + static_cast<size_t>(pos));
    }
    for (; i < n; ++i) {
      if (matches(i)) return static_cast<int64_t>(i);
    }
    return 0;
  }
  size_t end = n;
  for (; end >= N; end -= N) {
    const V v = hn::LoadU(d, x + end - N);
    if (hn::AllFalse(d, want_nan ? hn::IsNaN(v) : hn::Eq(v, t))) continue;
    for (size_t i = end; i-- > end - N;) {
      if (matches(i)) return static_cast<int64_t>(i);
    }
  }
  for (size_t i = end; i-- > 0;) {
    if (matches(i)) return static_cast<int64_t>(i);
  }
  return 0;
}

int64_t ArgExtremeRow(const float* x, int64_t n, bool is_max, bool last) {
  const size_t count = static_cast<size_t>(n);
  // Max/Min are exact, so the extreme equals one of the elements.
  const float extreme = is_max ? ReduceRowT<RowOp::kMax>(x, count) : ReduceRowT<RowOp::kMin>(x, count);
  return FindValue(x, count, extreme, last);
}

template <bool kMax, bool kLast>
HWY_INLINE auto Beats(V v, V best) {
  if constexpr (kLast)
    return hn::Or(kMax ? hn::Ge(v, best) : hn::Le(v, best), hn::IsNaN(v));
  else
    return hn::Or(kMax ? hn::Gt(v, best) : hn::Lt(v, best), hn::AndNot(hn::IsNaN(best), hn::IsNaN(v)));
}

template <bool kMax, bool kLast>
inline bool BeatsScalar(float v, float best) {
  if constexpr (kLast)
    return (kMax ? v >= best : v <= best) || std::isnan(v);
  else
    return (kMax ? v > best : v < best) || (std::isnan(v) && !std::isnan(best));
}

template <bool kMax, bool kLast>
void ArgExtremeAccumulateT(float* HWY_RESTRICT best, int32_t* HWY_RESTRICT index, const float* HWY_RESTRICT row,
                           size_t n, int32_t row_index) {
  const D d;
  const hn::RebindToSigned<D> di;
  const size_t N = hn::Lanes(d);
  const auto row_index_v = hn::Set(di, row_index);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const V v = hn::LoadU(d, row + i);
    const V b = hn::LoadU(d, best + i);
    const auto beats = Beats<kMax, kLast>(v, b);
    hn::StoreU(hn::IfThenElse(beats, v, b), d, best + i);
    hn::StoreU(hn::IfThenElse(hn::RebindMask(di, beats), row_index_v, hn::LoadU(di, index + i)), di, index + i);
  }
  for (; i < n; ++i) {
    if (BeatsScalar<kMax, kLast>(row[i], best[i])) {
      best[i] = row[i];
      index[i] = row_index;
    }
  }
}

void ArgExtremeAccumulate(float* best, int32_t* index, const float* row, int64_t n, int32_t row_index, bool is_max,
                          bool last) {
  const size_t count = static_cast<size_t>(n);
  if (is_max) {
    last ? ArgExtremeAccumulateT<true, true>(best, index, row, count, row_index)
         : ArgExtremeAccumulateT<true, false>(best, index, row, count, row_index);
  } else {
    last ? ArgExtremeAccumulateT<false, true>(best, index, row, count, row_index)
         : ArgExtremeAccumulateT<false, false>(best, index, row, count, row_index);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu::simd {

HWY_EXPORT(ReduceRow);
HWY_EXPORT(AccumulateRow);
HWY_EXPORT(SumSquaredDeviation);
HWY_EXPORT(ScaleShiftRow);
HWY_EXPORT(NormalizeRow);
HWY_EXPORT(MultiplyRow);
HWY_EXPORT(ColumnSums);
HWY_EXPORT(CopyEverySecond);
HWY_EXPORT(CopyEverySecondByte);
HWY_EXPORT(AddToBytes);
HWY_EXPORT(ArgExtremeRow);
HWY_EXPORT(ArgExtremeAccumulate);

float row_op_identity(RowOp op) {
  switch (op) {
    case RowOp::kMax: return -std::numeric_limits<float>::infinity();
    case RowOp::kMin: return std::numeric_limits<float>::infinity();
    case RowOp::kProd: return 1.0f;
    case RowOp::kSum:
    case RowOp::kSumSquares: break;
  }
  return 0.0f;
}

float reduce_row(RowOp op, const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(ReduceRow)(op, x, n); }

void accumulate_row(RowOp op, float* acc, const float* row, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateRow)(op, acc, row, n);
}

float sum_squared_deviation(const float* x, int64_t n, float mean) {
  return HWY_DYNAMIC_DISPATCH(SumSquaredDeviation)(x, n, mean);
}

void scale_shift_row(const float* x, int64_t n, float a, float b, float* y) {
  HWY_DYNAMIC_DISPATCH(ScaleShiftRow)(x, n, a, b, y);
}

void normalize_row(const float* x, int64_t n, float mean, float inv_std, const float* scale, const float* bias,
                   float* y) {
  HWY_DYNAMIC_DISPATCH(NormalizeRow)(x, n, mean, inv_std, scale, bias, y);
}

void column_sums(const float* x, int64_t rows, int64_t width, float* out) {
  HWY_DYNAMIC_DISPATCH(ColumnSums)(x, rows, width, out);
}

void multiply_row(const float* x, const float* s, int64_t n, float* y) {
  HWY_DYNAMIC_DISPATCH(MultiplyRow)(x, s, n, y);
}

void copy_every_second(const float* src, int64_t n, float* dst) {
  HWY_DYNAMIC_DISPATCH(CopyEverySecond)(src, n, dst);
}

void copy_every_second_byte(const uint8_t* src, int64_t src_stride, int64_t n, int64_t rows, uint8_t add,
                            uint8_t* dst, int64_t dst_stride) {
  if (n > 0 && rows > 0) HWY_DYNAMIC_DISPATCH(CopyEverySecondByte)(src, src_stride, n, rows, add, dst, dst_stride);
}

void add_to_bytes(const uint8_t* src, int64_t n, uint8_t add, uint8_t* dst) {
  if (n > 0) HWY_DYNAMIC_DISPATCH(AddToBytes)(src, n, add, dst);
}

int64_t arg_extreme_row(const float* x, int64_t n, bool is_max, bool last) {
  return HWY_DYNAMIC_DISPATCH(ArgExtremeRow)(x, n, is_max, last);
}

void arg_extreme_accumulate(float* best, int32_t* index, const float* row, int64_t n, int32_t row_index, bool is_max,
                            bool last) {
  HWY_DYNAMIC_DISPATCH(ArgExtremeAccumulate)(best, index, row, n, row_index, is_max, last);
}

}  // namespace mote::cpu::simd
#endif  // HWY_ONCE
