// SIMD bodies of unary_simd.hpp. Highway's foreach_target.h compiles this
// file once per instruction set; the HWY_ONCE section at the end holds the
// plain C++ entry points that pick one at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/unary_simd.cpp"
#include "hwy/foreach_target.h"  // must come before highway.h

#include <algorithm>

#include "hwy/highway.h"
#include "runtime/cpu/simd_math-inl.h"
#include "runtime/cpu/unary_simd.hpp"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu::unary_simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace sm = mote::simd_math::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// One function per UnaryFn: V f(D, V x, const UnaryParams&). The parameters
// are splatted inside (hoisted out of the loop once inlined) because vectors
// may not be class members on scalable targets.
template <UnaryFn kFn>
HWY_INLINE V Apply(D d, V x, const UnaryParams& p) {
  const V zero = hn::Zero(d);
  const V one = hn::Set(d, 1.0f);
  if constexpr (kFn == UnaryFn::kSqrt) return hn::Sqrt(x);
  if constexpr (kFn == UnaryFn::kExp) return sm::Exp(d, x);
  if constexpr (kFn == UnaryFn::kLog) return sm::Log(d, x);
  if constexpr (kFn == UnaryFn::kAbs) return hn::Abs(x);
  if constexpr (kFn == UnaryFn::kNeg) return hn::Neg(x);
  if constexpr (kFn == UnaryFn::kReciprocal) return hn::Div(one, x);
  if constexpr (kFn == UnaryFn::kRelu) return hn::IfThenZeroElse(hn::Lt(x, zero), x);
  if constexpr (kFn == UnaryFn::kLeakyRelu) return hn::IfThenElse(hn::Lt(x, zero), hn::Mul(x, hn::Set(d, p.alpha)), x);
  if constexpr (kFn == UnaryFn::kSigmoid) return sm::Sigmoid(d, x);
  if constexpr (kFn == UnaryFn::kSiLU) return sm::SiLU(d, x);
  if constexpr (kFn == UnaryFn::kTanh) return hn::Tanh(d, x);
  if constexpr (kFn == UnaryFn::kHardSigmoid || kFn == UnaryFn::kHardSwish) {
    const float alpha = kFn == UnaryFn::kHardSwish ? 1.0f / 6.0f : p.alpha;
    const float beta = kFn == UnaryFn::kHardSwish ? 0.5f : p.beta;
    const V gate = hn::Min(hn::Max(hn::MulAdd(x, hn::Set(d, alpha), hn::Set(d, beta)), zero), one);
    return kFn == UnaryFn::kHardSwish ? hn::Mul(x, gate) : gate;
  }
  if constexpr (kFn == UnaryFn::kElu) {
    return hn::IfThenElse(hn::Gt(x, zero), x, hn::Mul(hn::Set(d, p.alpha), hn::Expm1(d, hn::Min(x, zero))));
  }
  if constexpr (kFn == UnaryFn::kSelu) {
    const V negative = hn::Mul(hn::Set(d, p.alpha), hn::Expm1(d, hn::Min(x, zero)));
    return hn::Mul(hn::Set(d, p.gamma), hn::IfThenElse(hn::Gt(x, zero), x, negative));
  }
  if constexpr (kFn == UnaryFn::kGeluErf) {
    const V e = sm::Erf(d, hn::Mul(x, hn::Set(d, 0.70710678118654752f)));
    return hn::Mul(hn::Mul(hn::Set(d, 0.5f), x), hn::Add(one, e));
  }
  if constexpr (kFn == UnaryFn::kGeluTanh) {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
    const V x3 = hn::Mul(hn::Mul(x, x), x);
    const V inner = hn::Mul(hn::Set(d, 0.79788456080286536f), hn::MulAdd(x3, hn::Set(d, 0.044715f), x));
    return hn::Mul(hn::Mul(hn::Set(d, 0.5f), x), hn::Add(one, hn::Tanh(d, inner)));
  }
  if constexpr (kFn == UnaryFn::kErf) return sm::Erf(d, x);
  if constexpr (kFn == UnaryFn::kSoftplus) {
    // max(x, 0) + ln(1 + e^-|x|): no overflow for large x.
    return hn::Add(hn::Max(x, zero), hn::Log1p(d, sm::Exp(d, hn::Neg(hn::Abs(x)))));
  }
  if constexpr (kFn == UnaryFn::kSin) return sm::Sin(d, x);
  if constexpr (kFn == UnaryFn::kCos) return sm::Cos(d, x);
  if constexpr (kFn == UnaryFn::kFloor) return hn::Floor(x);
  if constexpr (kFn == UnaryFn::kCeil) return hn::Ceil(x);
  if constexpr (kFn == UnaryFn::kRound) return hn::Round(x);  // ties to even
  if constexpr (kFn == UnaryFn::kSign) {
    // Zeros keep their sign; NaN is restored by the caller.
    return hn::IfThenElse(hn::Gt(x, zero), one, hn::IfThenElse(hn::Lt(x, zero), hn::Neg(one), x));
  }
  if constexpr (kFn == UnaryFn::kClip) {
    // Comparisons rather than Max/Min, whose NaN rules vary by instruction
    // set: a NaN bound then bounds nothing, as in the reference.
    const V lo = hn::Set(d, p.lo);
    const V hi = hn::Set(d, p.hi);
    const V raised = hn::IfThenElse(hn::Lt(x, lo), lo, x);
    return hn::IfThenElse(hn::Lt(hi, raised), hi, raised);
  }
  return x;
}

// Every function maps NaN to NaN; instruction-set min/max and the math
// polynomials do not promise it, so it is restored here once for all. The
// functions see 0 in NaN lanes: Highway's portable (EMU128) Tanh and Expm1
// convert their argument to int32, undefined behaviour for a NaN in C++
// (clang's UBSan reports it).
template <UnaryFn kFn>
HWY_INLINE V ApplyKeepNaN(D d, V x, const UnaryParams& p) {
  const auto nan = hn::IsNaN(x);
  return hn::IfThenElse(nan, x, Apply<kFn>(d, hn::IfThenZeroElse(nan, x), p));
}

template <UnaryFn kFn>
void Map(const UnaryParams& p, const float* x, float* y, int64_t n) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  size_t i = 0;
  for (; i + lanes <= count; i += lanes) hn::StoreU(ApplyKeepNaN<kFn>(d, hn::LoadU(d, x + i), p), d, y + i);
  if (i < count) {
    // The tail goes through a full vector on the stack: no access past n.
    HWY_ALIGN float tail[hn::MaxLanes(d)] = {};
    std::copy(x + i, x + count, tail);
    hn::Store(ApplyKeepNaN<kFn>(d, hn::Load(d, tail), p), d, tail);
    std::copy(tail, tail + (count - i), y + i);
  }
}

void UnaryF32(UnaryFn fn, const UnaryParams& p, const float* x, float* y, int64_t n) {
  switch (fn) {
#define MOTE_UNARY_CASE(FN) \
  case UnaryFn::FN: return Map<UnaryFn::FN>(p, x, y, n);
    MOTE_UNARY_CASE(kSqrt)
    MOTE_UNARY_CASE(kExp)
    MOTE_UNARY_CASE(kLog)
    MOTE_UNARY_CASE(kAbs)
    MOTE_UNARY_CASE(kNeg)
    MOTE_UNARY_CASE(kReciprocal)
    MOTE_UNARY_CASE(kRelu)
    MOTE_UNARY_CASE(kLeakyRelu)
    MOTE_UNARY_CASE(kSigmoid)
    MOTE_UNARY_CASE(kSiLU)
    MOTE_UNARY_CASE(kTanh)
    MOTE_UNARY_CASE(kHardSigmoid)
    MOTE_UNARY_CASE(kHardSwish)
    MOTE_UNARY_CASE(kElu)
    MOTE_UNARY_CASE(kSelu)
    MOTE_UNARY_CASE(kGeluErf)
    MOTE_UNARY_CASE(kGeluTanh)
    MOTE_UNARY_CASE(kErf)
    MOTE_UNARY_CASE(kSoftplus)
    MOTE_UNARY_CASE(kSin)
    MOTE_UNARY_CASE(kCos)
    MOTE_UNARY_CASE(kFloor)
    MOTE_UNARY_CASE(kCeil)
    MOTE_UNARY_CASE(kRound)
    MOTE_UNARY_CASE(kSign)
    MOTE_UNARY_CASE(kClip)
#undef MOTE_UNARY_CASE
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu::unary_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu {
namespace unary_simd {
HWY_EXPORT(UnaryF32);
}  // namespace unary_simd

void unary_f32(UnaryFn fn, const UnaryParams& params, const float* x, float* y, int64_t n) {
  if (n <= 0) return;
  using namespace unary_simd;  // see binary_simd.cpp
  HWY_DYNAMIC_DISPATCH(UnaryF32)(fn, params, x, y, n);
}

bool unary_is_transcendental(UnaryFn fn) {
  switch (fn) {
    case UnaryFn::kExp: case UnaryFn::kLog: case UnaryFn::kSigmoid: case UnaryFn::kSiLU:
    case UnaryFn::kTanh: case UnaryFn::kElu: case UnaryFn::kSelu: case UnaryFn::kGeluErf:
    case UnaryFn::kGeluTanh: case UnaryFn::kErf: case UnaryFn::kSoftplus: case UnaryFn::kSin:
    case UnaryFn::kCos:
      return true;
    default:
      return false;
  }
}

}  // namespace mote::cpu
#endif  // HWY_ONCE
