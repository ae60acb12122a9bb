// SIMD bodies of binary_simd.hpp. Highway's foreach_target.h compiles this
// file once per instruction set; the HWY_ONCE section at the end holds the
// plain C++ lookups that hand out the row functions of the best one.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/binary_simd.cpp"
#include "hwy/foreach_target.h"  // must come before highway.h

#include <algorithm>
#include <cmath>
#include <limits>

#include "hwy/highway.h"
#include "runtime/cpu/binary_simd.hpp"
#include "runtime/ops/integer_math.hpp"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu::binary_simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// ---------------------------------------------------------------------------
// Float rows: Highway vectors.

// out = f(d, a, b) over a row of n float operands, where each operand walks
// the row or repeats a[0] / b[0]; one loop per case so the repeated operand
// stays in a register. f is generic over the descriptor and returns a vector
// of TOut lanes (float, or bool bytes). The tail, and rows shorter than a
// vector, go one lane at a time through the same f on a one-lane
// descriptor: the same operations, without stack copies.
template <class TOut, class F>
HWY_INLINE void VectorRow(const float* a, bool a_walks, const float* b, bool b_walks, TOut* out, size_t n, F f) {
  const D d;
  const hn::Rebind<TOut, D> dout;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  if (n >= lanes) {
    const V a0 = hn::Set(d, a[0]);
    const V b0 = hn::Set(d, b[0]);
    if (a_walks && b_walks) {
      for (; i + lanes <= n; i += lanes) hn::StoreU(f(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i)), dout, out + i);
    } else if (a_walks) {
      for (; i + lanes <= n; i += lanes) hn::StoreU(f(d, hn::LoadU(d, a + i), b0), dout, out + i);
    } else if (b_walks) {
      for (; i + lanes <= n; i += lanes) hn::StoreU(f(d, a0, hn::LoadU(d, b + i)), dout, out + i);
    } else {
      const auto same = f(d, a0, b0);
      for (; i + lanes <= n; i += lanes) hn::StoreU(same, dout, out + i);
    }
  }
  const hn::CappedTag<float, 1> d1;
  const hn::Rebind<TOut, decltype(d1)> dout1;
  for (; i < n; ++i) {
    hn::StoreU(f(d1, hn::LoadU(d1, a + (a_walks ? i : 0)), hn::LoadU(d1, b + (b_walks ? i : 0))), dout1, out + i);
  }
}

template <BinaryFn kFn, class DF>
HWY_INLINE hn::Vec<DF> FloatArithmetic(DF d, hn::Vec<DF> a, hn::Vec<DF> b) {
  if constexpr (kFn == BinaryFn::kAdd) return hn::Add(a, b);
  if constexpr (kFn == BinaryFn::kSub) return hn::Sub(a, b);
  if constexpr (kFn == BinaryFn::kMul) return hn::Mul(a, b);
  if constexpr (kFn == BinaryFn::kDiv) return hn::Div(a, b);
  // A NaN operand wins (numpy's minimum/maximum); the instruction set's own
  // min/max would return the other operand on x86.
  if constexpr (kFn == BinaryFn::kMin) return hn::IfThenElse(hn::Or(hn::Lt(a, b), hn::IsNaN(a)), a, b);
  if constexpr (kFn == BinaryFn::kMax) return hn::IfThenElse(hn::Or(hn::Gt(a, b), hn::IsNaN(a)), a, b);
  if constexpr (kFn == BinaryFn::kPRelu) return hn::IfThenElse(hn::Lt(a, hn::Zero(d)), hn::Mul(a, b), a);
  return a;
}

// Comparison masks become bool bytes (0 or 1): select 1 in 32-bit lanes,
// then narrow them to bytes.
template <BinaryFn kFn, class DF>
HWY_INLINE auto FloatCompare(DF d, hn::Vec<DF> a, hn::Vec<DF> b) {
  const hn::RebindToSigned<DF> di;
  const hn::Rebind<uint8_t, DF> d8;
  auto is_true = [&] {
    if constexpr (kFn == BinaryFn::kEqual) return hn::Eq(a, b);
    if constexpr (kFn == BinaryFn::kLess) return hn::Lt(a, b);
    if constexpr (kFn == BinaryFn::kGreater) return hn::Gt(a, b);
    if constexpr (kFn == BinaryFn::kLessOrEqual) return hn::Le(a, b);
    if constexpr (kFn == BinaryFn::kGreaterOrEqual) return hn::Ge(a, b);
  }();
  return hn::DemoteTo(d8, hn::IfThenElseZero(hn::RebindMask(di, is_true), hn::Set(di, 1)));
}

template <BinaryFn kFn>
void FloatArithmeticRow(const void* a, int64_t a_step, const void* b, int64_t b_step, void* out, int64_t n) {
  VectorRow(static_cast<const float*>(a), a_step != 0, static_cast<const float*>(b), b_step != 0,
            static_cast<float*>(out), static_cast<size_t>(n),
            [](auto d, auto x, auto y) { return FloatArithmetic<kFn>(d, x, y); });
}

template <BinaryFn kFn>
void FloatCompareRow(const void* a, int64_t a_step, const void* b, int64_t b_step, void* out, int64_t n) {
  VectorRow(static_cast<const float*>(a), a_step != 0, static_cast<const float*>(b), b_step != 0,
            static_cast<uint8_t*>(out), static_cast<size_t>(n),
            [](auto d, auto x, auto y) { return FloatCompare<kFn>(d, x, y); });
}

// ---------------------------------------------------------------------------
// Scalar rows: integers, bools, and the general Pow. Plain loops, one per
// operand-step case; compiled for this target, the compiler vectorises what
// it can (integer add, compare, min...).

template <class TA, class TB, class TOut, class F>
HWY_INLINE void ScalarRow(const TA* a, bool a_walks, const TB* b, bool b_walks, TOut* out, size_t n, F f) {
  if (a_walks && b_walks) {
    for (size_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
  } else if (a_walks) {
    const TB b0 = b[0];
    for (size_t i = 0; i < n; ++i) out[i] = f(a[i], b0);
  } else if (b_walks) {
    const TA a0 = a[0];
    for (size_t i = 0; i < n; ++i) out[i] = f(a0, b[i]);
  } else {
    std::fill(out, out + n, static_cast<TOut>(f(a[0], b[0])));
  }
}

// The integer and bool forms of every op but Pow.
template <BinaryFn kFn, class T>
HWY_INLINE auto ScalarApply(T a, T b) {
  if constexpr (kFn == BinaryFn::kAdd) return wrapping_add(a, b);
  if constexpr (kFn == BinaryFn::kSub) return wrapping_sub(a, b);
  if constexpr (kFn == BinaryFn::kMul) return wrapping_mul(a, b);
  if constexpr (kFn == BinaryFn::kDiv) return truncating_divide(a, b);
  if constexpr (kFn == BinaryFn::kMin) return b < a ? b : a;
  if constexpr (kFn == BinaryFn::kMax) return a < b ? b : a;
  if constexpr (kFn == BinaryFn::kPRelu) return a < 0 ? wrapping_mul(a, b) : a;
  if constexpr (kFn == BinaryFn::kMod) return integer_mod(a, b, /*fmod=*/false);
  if constexpr (kFn == BinaryFn::kFmod) return integer_mod(a, b, /*fmod=*/true);
  if constexpr (kFn == BinaryFn::kEqual) return a == b;
  if constexpr (kFn == BinaryFn::kLess) return a < b;
  if constexpr (kFn == BinaryFn::kGreater) return a > b;
  if constexpr (kFn == BinaryFn::kLessOrEqual) return a <= b;
  if constexpr (kFn == BinaryFn::kGreaterOrEqual) return a >= b;
  if constexpr (kFn == BinaryFn::kAnd) return a && b;
  if constexpr (kFn == BinaryFn::kOr) return a || b;
  if constexpr (kFn == BinaryFn::kXor) return a != b;
  if constexpr (kFn == BinaryFn::kBitAnd) return static_cast<T>(a & b);
  if constexpr (kFn == BinaryFn::kBitOr) return static_cast<T>(a | b);
  if constexpr (kFn == BinaryFn::kBitXor) return static_cast<T>(a ^ b);
}

template <BinaryFn kFn, class T>
void ScalarApplyRow(const void* a, int64_t a_step, const void* b, int64_t b_step, void* out, int64_t n) {
  using TOut = decltype(ScalarApply<kFn, T>(T{}, T{}));
  ScalarRow(static_cast<const T*>(a), a_step != 0, static_cast<const T*>(b), b_step != 0, static_cast<TOut*>(out),
            static_cast<size_t>(n), [](T x, T y) { return ScalarApply<kFn, T>(x, y); });
}

template <class TA, class TB>
void PowRow(const void* a, int64_t a_step, const void* b, int64_t b_step, void* out, int64_t n) {
  ScalarRow(static_cast<const TA*>(a), a_step != 0, static_cast<const TB*>(b), b_step != 0, static_cast<TA*>(out),
            static_cast<size_t>(n), [](TA x, TB y) { return pow_element(x, y); });
}

// f32 ^ f32. Models raise to a constant exponent (x^2 in variance, x^0.5,
// x^3 in tanh-Gelu), which becomes vector arithmetic; anything else takes
// powf per element.
template <>
void PowRow<float, float>(const void* pa, int64_t a_step, const void* pb, int64_t b_step, void* pout, int64_t n) {
  const float* a = static_cast<const float*>(pa);
  const float* b = static_cast<const float*>(pb);
  float* out = static_cast<float*>(pout);
  const size_t count = static_cast<size_t>(n);
  if (b_step == 0) {
    auto by_vector = [&](auto f) {
      VectorRow(a, a_step != 0, b, false, out, count, [f](auto d, auto x, auto) { return f(d, x); });
    };
    const float e = b[0];
    if (e == 0.0f) return by_vector([](auto d, auto) { return hn::Set(d, 1.0f); });  // even for NaN, as pow
    if (e == 1.0f) return by_vector([](auto, auto x) { return x; });
    if (e == 2.0f) return by_vector([](auto, auto x) { return hn::Mul(x, x); });
    if (e == 3.0f) return by_vector([](auto, auto x) { return hn::Mul(hn::Mul(x, x), x); });
    if (e == -1.0f) return by_vector([](auto d, auto x) { return hn::Div(hn::Set(d, 1.0f), x); });
    if (e == 0.5f) {
      // pow(x, 0.5) is sqrt(x) except that pow(-0, 0.5) = +0 and
      // pow(-inf, 0.5) = +inf.
      return by_vector([](auto d, auto x) {
        const auto inf = hn::Set(d, std::numeric_limits<float>::infinity());
        return hn::IfThenElse(hn::Eq(x, hn::Neg(inf)), inf, hn::Abs(hn::Sqrt(x)));
      });
    }
  }
  ScalarRow(a, a_step != 0, b, b_step != 0, out, count, [](float x, float y) { return std::pow(x, y); });
}

// Float Mod (fmod=1; the divisor-sign form is for integers): std::fmod per
// element, exact where a vector a - b * trunc(a / b) is not.
void FloatFmodRow(const void* a, int64_t a_step, const void* b, int64_t b_step, void* out, int64_t n) {
  ScalarRow(static_cast<const float*>(a), a_step != 0, static_cast<const float*>(b), b_step != 0,
            static_cast<float*>(out), static_cast<size_t>(n), [](float x, float y) { return std::fmod(x, y); });
}

// ---------------------------------------------------------------------------
// Lookups.

template <class TA>
BinaryRowFn PowRowFor(DType b) {
  switch (b) {
    case DType::F32: return &PowRow<TA, float>;
    case DType::I32: return &PowRow<TA, int32_t>;
    case DType::I64: return &PowRow<TA, int64_t>;
    default: return nullptr;
  }
}

BinaryRowFn FloatRowFor(BinaryFn fn) {
  switch (fn) {
    case BinaryFn::kAdd: return &FloatArithmeticRow<BinaryFn::kAdd>;
    case BinaryFn::kSub: return &FloatArithmeticRow<BinaryFn::kSub>;
    case BinaryFn::kMul: return &FloatArithmeticRow<BinaryFn::kMul>;
    case BinaryFn::kDiv: return &FloatArithmeticRow<BinaryFn::kDiv>;
    case BinaryFn::kMin: return &FloatArithmeticRow<BinaryFn::kMin>;
    case BinaryFn::kMax: return &FloatArithmeticRow<BinaryFn::kMax>;
    case BinaryFn::kPRelu: return &FloatArithmeticRow<BinaryFn::kPRelu>;
    case BinaryFn::kFmod: return &FloatFmodRow;
    case BinaryFn::kEqual: return &FloatCompareRow<BinaryFn::kEqual>;
    case BinaryFn::kLess: return &FloatCompareRow<BinaryFn::kLess>;
    case BinaryFn::kGreater: return &FloatCompareRow<BinaryFn::kGreater>;
    case BinaryFn::kLessOrEqual: return &FloatCompareRow<BinaryFn::kLessOrEqual>;
    case BinaryFn::kGreaterOrEqual: return &FloatCompareRow<BinaryFn::kGreaterOrEqual>;
    default: return nullptr;
  }
}

template <class T>
BinaryRowFn IntegerRowFor(BinaryFn fn) {
  switch (fn) {
    case BinaryFn::kAdd: return &ScalarApplyRow<BinaryFn::kAdd, T>;
    case BinaryFn::kSub: return &ScalarApplyRow<BinaryFn::kSub, T>;
    case BinaryFn::kMul: return &ScalarApplyRow<BinaryFn::kMul, T>;
    case BinaryFn::kDiv: return &ScalarApplyRow<BinaryFn::kDiv, T>;
    case BinaryFn::kMin: return &ScalarApplyRow<BinaryFn::kMin, T>;
    case BinaryFn::kMax: return &ScalarApplyRow<BinaryFn::kMax, T>;
    case BinaryFn::kPRelu: return &ScalarApplyRow<BinaryFn::kPRelu, T>;
    case BinaryFn::kMod: return &ScalarApplyRow<BinaryFn::kMod, T>;
    case BinaryFn::kFmod: return &ScalarApplyRow<BinaryFn::kFmod, T>;
    case BinaryFn::kEqual: return &ScalarApplyRow<BinaryFn::kEqual, T>;
    case BinaryFn::kLess: return &ScalarApplyRow<BinaryFn::kLess, T>;
    case BinaryFn::kGreater: return &ScalarApplyRow<BinaryFn::kGreater, T>;
    case BinaryFn::kLessOrEqual: return &ScalarApplyRow<BinaryFn::kLessOrEqual, T>;
    case BinaryFn::kGreaterOrEqual: return &ScalarApplyRow<BinaryFn::kGreaterOrEqual, T>;
    case BinaryFn::kBitAnd: return &ScalarApplyRow<BinaryFn::kBitAnd, T>;
    case BinaryFn::kBitOr: return &ScalarApplyRow<BinaryFn::kBitOr, T>;
    case BinaryFn::kBitXor: return &ScalarApplyRow<BinaryFn::kBitXor, T>;
    default: return nullptr;
  }
}

BinaryRowFn BoolRowFor(BinaryFn fn) {
  switch (fn) {
    case BinaryFn::kAnd: return &ScalarApplyRow<BinaryFn::kAnd, bool>;
    case BinaryFn::kOr: return &ScalarApplyRow<BinaryFn::kOr, bool>;
    case BinaryFn::kXor: return &ScalarApplyRow<BinaryFn::kXor, bool>;
    case BinaryFn::kEqual: return &ScalarApplyRow<BinaryFn::kEqual, bool>;
    default: return nullptr;
  }
}

BinaryRowFn GetBinaryRowFn(BinaryFn fn, DType a, DType b) {
  if (fn == BinaryFn::kPow) {
    switch (a) {
      case DType::F32: return PowRowFor<float>(b);
      case DType::I32: return PowRowFor<int32_t>(b);
      case DType::I64: return PowRowFor<int64_t>(b);
      default: return nullptr;
    }
  }
  if (a != b) return nullptr;
  switch (a) {
    case DType::F32: return FloatRowFor(fn);
    case DType::I32: return IntegerRowFor<int32_t>(fn);
    case DType::I64: return IntegerRowFor<int64_t>(fn);
    case DType::I8: return IntegerRowFor<int8_t>(fn);
    case DType::U8: return IntegerRowFor<uint8_t>(fn);
    case DType::Bool: return BoolRowFor(fn);
    default: return nullptr;
  }
}

// ---------------------------------------------------------------------------
// Where: a byte-wise select of elements of one size, whatever their dtype.

// A bitwise select rather than `c ? x : y`: with random conditions a branch
// mispredicts half the time, and the compiler vectorises the masks.
template <class T, bool kCondWalks, bool kXWalks, bool kYWalks>
void SelectRow(const bool* cond, const T* x, const T* y, T* out, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const T take_x = static_cast<T>(T{0} - static_cast<T>(cond[kCondWalks ? i : 0]));  // all ones or zero
    out[i] = static_cast<T>((x[kXWalks ? i : 0] & take_x) | (y[kYWalks ? i : 0] & static_cast<T>(~take_x)));
  }
}

template <class T>
void WhereRow(const bool* cond, int64_t c_step, const void* px, int64_t x_step, const void* py, int64_t y_step,
              void* pout, int64_t n) {
  const T* x = static_cast<const T*>(px);
  const T* y = static_cast<const T*>(py);
  T* out = static_cast<T*>(pout);
  const size_t count = static_cast<size_t>(n);
  switch ((c_step != 0) * 4 + (x_step != 0) * 2 + (y_step != 0)) {
    case 0: return SelectRow<T, false, false, false>(cond, x, y, out, count);
    case 1: return SelectRow<T, false, false, true>(cond, x, y, out, count);
    case 2: return SelectRow<T, false, true, false>(cond, x, y, out, count);
    case 3: return SelectRow<T, false, true, true>(cond, x, y, out, count);
    case 4: return SelectRow<T, true, false, false>(cond, x, y, out, count);
    case 5: return SelectRow<T, true, false, true>(cond, x, y, out, count);
    case 6: return SelectRow<T, true, true, false>(cond, x, y, out, count);
    default: return SelectRow<T, true, true, true>(cond, x, y, out, count);
  }
}

WhereRowFn GetWhereRowFn(size_t element_size) {
  switch (element_size) {
    case 1: return &WhereRow<uint8_t>;
    case 2: return &WhereRow<uint16_t>;
    case 4: return &WhereRow<uint32_t>;
    case 8: return &WhereRow<uint64_t>;
    default: return nullptr;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu::binary_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu {
namespace binary_simd {
HWY_EXPORT(GetBinaryRowFn);
HWY_EXPORT(GetWhereRowFn);
}  // namespace binary_simd

// The dispatched names are looked up unqualified: a build for one target only
// (HWY_COMPILE_ONLY_STATIC, for the smallest binary) expands the dispatch to
// N_<TARGET>::name, which a qualified name would turn into the wrong namespace.
BinaryRowFn binary_row_fn(BinaryFn fn, DType a, DType b) {
  using namespace binary_simd;
  return HWY_DYNAMIC_DISPATCH(GetBinaryRowFn)(fn, a, b);
}

WhereRowFn where_row_fn(size_t element_size) {
  using namespace binary_simd;
  return HWY_DYNAMIC_DISPATCH(GetWhereRowFn)(element_size);
}

}  // namespace mote::cpu
#endif  // HWY_ONCE
