// SIMD bodies of softmax_simd.hpp, compiled once per instruction set by
// Highway's foreach_target.h; the HWY_ONCE section dispatches at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/softmax_simd.cpp"
#include "hwy/foreach_target.h"  // must come before highway.h

#include <cstddef>
#include <cstring>

#include "hwy/highway.h"
#include "runtime/cpu/simd_math-inl.h"
#include "runtime/cpu/softmax_simd.hpp"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace sm = mote::simd_math::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// Elements summed in float before the partial sum goes into a double.
constexpr size_t kSumBlock = 4096;

// e^y for y = x - shift, the shift being the max of x's row (or column), so
// y <= 0 unless a NaN is involved: sm::ExpClamped, about half of sm::Exp's
// instructions, its clamp at -87 turned into 0 below it (a masked logit is
// -inf; e^-87 is 1.6e-38, within 0.5e-38 of the smallest normal float,
// where sm::Exp gives denormals or 0), NaN kept where x - max is NaN. The
// transformer encoder's attention layers (4 heads of 128 x 128 scores,
// mote-bench --per-op, 1 thread) 0.228 -> 0.214 ms each.
HWY_INLINE V ExpOfShifted(D d, V y) {
  const V e = sm::ExpClamped(d, y);
  return hn::IfThenElse(hn::IsNaN(y), y, hn::IfThenZeroElse(hn::Lt(y, hn::Set(d, -87.0f)), e));
}

// The last partial vector goes through a zero-padded copy so that every
// element sees the same vector Exp (padding lanes are dropped, not summed).
float ExpShiftedSumSpan(const float* x, size_t n, float shift, float* y) {
  const D d;
  const size_t N = hn::Lanes(d);
  const V s = hn::Set(d, shift);
  V a0 = hn::Zero(d), a1 = a0;
  size_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    const V e0 = ExpOfShifted(d, hn::Sub(hn::LoadU(d, x + i), s));
    const V e1 = ExpOfShifted(d, hn::Sub(hn::LoadU(d, x + i + N), s));
    if (y) {
      hn::StoreU(e0, d, y + i);
      hn::StoreU(e1, d, y + i + N);
    }
    a0 = hn::Add(a0, e0);
    a1 = hn::Add(a1, e1);
  }
  for (; i + N <= n; i += N) {
    const V e = ExpOfShifted(d, hn::Sub(hn::LoadU(d, x + i), s));
    if (y) hn::StoreU(e, d, y + i);
    a0 = hn::Add(a0, e);
  }
  if (i < n) {
    float buffer[HWY_MAX_BYTES / sizeof(float)] = {};
    const size_t rest = n - i;
    std::memcpy(buffer, x + i, rest * sizeof(float));
    const V e = ExpOfShifted(d, hn::Sub(hn::LoadU(d, buffer), s));
    hn::StoreU(e, d, buffer);
    float tail = 0.0f;
    for (size_t j = 0; j < rest; ++j) {
      if (y) y[i + j] = buffer[j];
      tail += buffer[j];
    }
    return hn::GetLane(hn::SumOfLanes(d, hn::Add(a0, a1))) + tail;
  }
  return hn::GetLane(hn::SumOfLanes(d, hn::Add(a0, a1)));
}

float ExpShiftedSum(const float* x, int64_t n, float shift, float* y) {
  const size_t count = static_cast<size_t>(n);
  double total = 0.0;
  for (size_t begin = 0; begin < count; begin += kSumBlock) {
    const size_t len = count - begin < kSumBlock ? count - begin : kSumBlock;
    total += ExpShiftedSumSpan(x + begin, len, shift, y ? y + begin : nullptr);
  }
  return static_cast<float>(total);
}

void ExpShiftedAccumulate(const float* x, const float* shift, int64_t n, float* y, float* sum) {
  const D d;
  const size_t N = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  size_t i = 0;
  for (; i + N <= count; i += N) {
    const V e = ExpOfShifted(d, hn::Sub(hn::LoadU(d, x + i), hn::LoadU(d, shift + i)));
    if (y) hn::StoreU(e, d, y + i);
    hn::StoreU(hn::Add(hn::LoadU(d, sum + i), e), d, sum + i);
  }
  if (i < count) {
    float xs[HWY_MAX_BYTES / sizeof(float)] = {};
    float ss[HWY_MAX_BYTES / sizeof(float)] = {};
    const size_t rest = count - i;
    std::memcpy(xs, x + i, rest * sizeof(float));
    std::memcpy(ss, shift + i, rest * sizeof(float));
    hn::StoreU(ExpOfShifted(d, hn::Sub(hn::LoadU(d, xs), hn::LoadU(d, ss))), d, xs);
    for (size_t j = 0; j < rest; ++j) {
      if (y) y[i + j] = xs[j];
      sum[i + j] += xs[j];
    }
  }
}

void LogSoftmaxRow(const float* x, int64_t n, float max, float log_sum, float* y) {
  const D d;
  const size_t N = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  const V m = hn::Set(d, max), l = hn::Set(d, log_sum);
  size_t i = 0;
  for (; i + N <= count; i += N) hn::StoreU(hn::Sub(hn::Sub(hn::LoadU(d, x + i), m), l), d, y + i);
  for (; i < count; ++i) y[i] = (x[i] - max) - log_sum;
}

void LogSoftmaxColumns(const float* x, const float* max, const float* log_sum, int64_t n, float* y) {
  const D d;
  const size_t N = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  size_t i = 0;
  for (; i + N <= count; i += N) {
    const V shifted = hn::Sub(hn::LoadU(d, x + i), hn::LoadU(d, max + i));
    hn::StoreU(hn::Sub(shifted, hn::LoadU(d, log_sum + i)), d, y + i);
  }
  for (; i < count; ++i) y[i] = (x[i] - max[i]) - log_sum[i];
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu::simd {

HWY_EXPORT(ExpShiftedSum);
HWY_EXPORT(ExpShiftedAccumulate);
HWY_EXPORT(LogSoftmaxRow);
HWY_EXPORT(LogSoftmaxColumns);

float exp_shifted_sum(const float* x, int64_t n, float shift, float* y) {
  return HWY_DYNAMIC_DISPATCH(ExpShiftedSum)(x, n, shift, y);
}

void exp_shifted_accumulate(const float* x, const float* shift, int64_t n, float* y, float* sum) {
  HWY_DYNAMIC_DISPATCH(ExpShiftedAccumulate)(x, shift, n, y, sum);
}

void log_softmax_row(const float* x, int64_t n, float max, float log_sum, float* y) {
  HWY_DYNAMIC_DISPATCH(LogSoftmaxRow)(x, n, max, log_sum, y);
}

void log_softmax_columns(const float* x, const float* max, const float* log_sum, int64_t n, float* y) {
  HWY_DYNAMIC_DISPATCH(LogSoftmaxColumns)(x, max, log_sum, n, y);
}

}  // namespace mote::cpu::simd
#endif  // HWY_ONCE
