// Float math for Highway kernels over the whole IEEE domain.
//
// hwy/contrib/math is fast but documents narrow valid ranges: Exp is wrong
// above +104 and turns NaN into 0, Log is undefined for x <= 0 and +inf,
// Sin/Cos lose accuracy past |x| = 39000. These wrappers add the missing
// cases so every kernel gets what <cmath> gives (inf, NaN, -inf), and add the
// functions hwy lacks (Erf, Sigmoid).
//
// A per-target -inl header: include it after hwy/highway.h in a file compiled
// through hwy/foreach_target.h.
#if defined(MOTE_CPU_SIMD_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MOTE_CPU_SIMD_MATH_INL_H_
#undef MOTE_CPU_SIMD_MATH_INL_H_
#else
#define MOTE_CPU_SIMD_MATH_INL_H_
#endif

#include <cmath>
#include <limits>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace mote::simd_math {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Applies the scalar f to each lane: the slow path for rare inputs.
template <class D, class F>
HWY_INLINE hn::Vec<D> MapLanes(D d, hn::Vec<D> x, F f) {
  using T = hn::TFromD<D>;
  HWY_ALIGN T lanes[hn::MaxLanes(d)];
  hn::Store(x, d, lanes);
  for (size_t i = 0; i < hn::Lanes(d); ++i) lanes[i] = f(lanes[i]);
  return hn::Load(d, lanes);
}

// e^x for every float. hn::Exp documents [-FLT_MAX, 104]: past 89 e^x
// overflows float anyway, so clamping there still yields +inf; below -105 it
// is 0, which hn::Exp returns there (its own bound is -104), so -inf is
// clamped into the documented range too. hn::Exp converts its argument to
// int32 first, which for NaN is undefined behaviour in the portable (EMU128,
// scalar) targets: NaN lanes see 0 and get their NaN back.
template <class D>
HWY_INLINE hn::Vec<D> Exp(D d, hn::Vec<D> x) {
  const auto nan = hn::IsNaN(x);
  const auto in_range = hn::Min(hn::Max(hn::IfThenZeroElse(nan, x), hn::Set(d, -105.0f)), hn::Set(d, 89.0f));
  return hn::IfThenElse(nan, x, hn::Exp(d, in_range));
}

// ln(x), with ln(0) = -inf, ln(+inf) = +inf and NaN for x < 0.
template <class D>
HWY_INLINE hn::Vec<D> Log(D d, hn::Vec<D> x) {
  using T = hn::TFromD<D>;
  const auto zero = hn::Zero(d);
  const auto inf = hn::Set(d, std::numeric_limits<T>::infinity());
  auto y = hn::Log(d, x);
  y = hn::IfThenElse(hn::Eq(x, zero), hn::Neg(inf), y);
  y = hn::IfThenElse(hn::Eq(x, inf), inf, y);
  y = hn::IfThenElse(hn::Lt(x, zero), hn::Set(d, std::numeric_limits<T>::quiet_NaN()), y);
  return hn::IfThenElse(hn::IsNaN(x), x, y);
}

// hn::Sin and hn::Cos reduce the argument accurately up to |x| = 39000;
// vectors holding anything larger (or inf, NaN) take the scalar path.
constexpr float kTrigRange = 39000.0f;

template <class D>
HWY_INLINE hn::Vec<D> Sin(D d, hn::Vec<D> x) {
  if (HWY_LIKELY(hn::AllTrue(d, hn::Le(hn::Abs(x), hn::Set(d, kTrigRange))))) return hn::Sin(d, x);
  return MapLanes(d, x, [](auto v) { return std::sin(v); });
}

template <class D>
HWY_INLINE hn::Vec<D> Cos(D d, hn::Vec<D> x) {
  if (HWY_LIKELY(hn::AllTrue(d, hn::Le(hn::Abs(x), hn::Set(d, kTrigRange))))) return hn::Cos(d, x);
  return MapLanes(d, x, [](auto v) { return std::cos(v); });
}

// e^y with y clamped to [-87, 88] (NaN lanes give garbage on x86, whose
// min/max drop a NaN: callers mask them or let a NaN operand carry through),
// in about half the instructions of hn::Exp, which also handles the whole
// range: y = n ln2 + r with |r| <= ln2 / 2 (Cody-Waite, ln2 in two parts),
// e^r by its Taylor polynomial of degree 7 (remainder below 7e-9 relative),
// 2^n put into the exponent bits. n is rounded by adding 1.5 * 2^23, which
// leaves it in the sum's low bits: a round and a conversion fewer, which made
// SiLU 1.2x faster (in L1, AVX-512). The clamp keeps 2^n a normal float.
template <class D>
HWY_INLINE hn::Vec<D> ExpClamped(D d, hn::Vec<D> y) {
  using V = hn::Vec<D>;
  const hn::RebindToSigned<D> di;
  y = hn::Min(hn::Max(y, hn::Set(d, -87.0f)), hn::Set(d, 88.0f));
  const V magic = hn::Set(d, 12582912.0f);  // 1.5 * 2^23
  const V shifted = hn::MulAdd(y, hn::Set(d, 1.44269504088896341f), magic);
  const V n = hn::Sub(shifted, magic);
  V r = hn::MulAdd(n, hn::Set(d, -0.693145751953125f), y);        // ln2, high bits (exact product)
  r = hn::MulAdd(n, hn::Set(d, -1.428606820309417232e-06f), r);  // ln2, the rest
  V p = hn::Set(d, 1.0f / 5040.0f);
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 720.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 120.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 24.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 6.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 0.5f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f));
  // n in [-126, 127]: the biased exponent n + 127 is 1 to 254.
  const auto n_bits = hn::Sub(hn::BitCast(di, shifted), hn::BitCast(di, magic));
  const auto bits = hn::ShiftLeft<23>(hn::Add(n_bits, hn::Set(di, 127)));
  return hn::Mul(p, hn::BitCast(d, bits));
}

// 1 / (1 + e^-x), built from e^-|x| (never overflows) so that it is accurate
// for large negative x too: there it is e^x / (1 + e^x), down to x = -87
// where e^x reaches the smallest normal floats. Within 2.5 ulp of
// the exact value over [-30, 30] (measured against double); 1.3x faster than
// with hn::Exp, which SiLU-heavy networks (EfficientNet) feel. A reciprocal
// estimate with a Newton step instead of the division was no faster and
// 3.5 ulp off, enough to move a random-weight EfficientNet-B0's logits by
// 1.2e-4 of their range.
template <class D>
HWY_INLINE hn::Vec<D> Sigmoid(D d, hn::Vec<D> x) {
  const auto one = hn::Set(d, 1.0f);
  const auto e = ExpClamped(d, hn::Neg(hn::Abs(x)));
  const auto r = hn::Div(one, hn::Add(one, e));
  const auto y = hn::IfThenElse(hn::Ge(x, hn::Zero(d)), r, hn::Mul(e, r));
  return hn::IfThenElse(hn::IsNaN(x), x, y);
}

// x * sigmoid(x) as x / (1 + e^-x), with no sign split. Where e^-x would
// overflow (x < -88) the clamped e^88 keeps the quotient tiny, and below
// x = -100 (true value under 4e-42) it is set to zero, or huge negative x
// would leave x / e^88 far from it. A NaN x comes through the division.
// Within 1.8 ulp over [-30, 30] (against double) and 1.5x faster than
// x * Sigmoid(x) in L1 on AVX-512; EfficientNet-B0 spent a fifth of its time
// in x * Sigmoid(x), 16 % in this (perf).
template <class D>
HWY_INLINE hn::Vec<D> SiLU(D d, hn::Vec<D> x) {
  const hn::Vec<D> quotient = hn::Div(x, hn::Add(hn::Set(d, 1.0f), ExpClamped(d, hn::Neg(x))));
  return hn::IfThenZeroElse(hn::Lt(x, hn::Set(d, -100.0f)), quotient);
}

// erf(x) for float lanes, within 2 ulp of the exact value (measured in
// tests/ops/unary_test.cpp against std::erf). Two polynomials, fitted for
// this file by weighted least squares (Lawson iterations) on Chebyshev nodes:
//   |x| < 1:        erf(x) = x * P(x^2), degree 5 in x^2 (relative fit);
//   1 <= |x| < 3.92: erf(|x|) = 1 - Q(u), u = (|x| - 2.46) / 1.46 in [-1, 1],
//                   Q of degree 12 fits erfc within 3e-8 absolute.
// From 3.92 on, erfc < 2e-8 and erf rounds to 1 in float.
template <class D>
HWY_INLINE hn::Vec<D> Erf(D d, hn::Vec<D> x) {
  using V = hn::Vec<D>;
  const V ax = hn::Min(hn::Abs(x), hn::Set(d, 3.92f));

  const V t = hn::Mul(ax, ax);
  V p = hn::Set(d, -5.631566164e-04f);
  p = hn::MulAdd(p, t, hn::Set(d, 4.917591810e-03f));
  p = hn::MulAdd(p, t, hn::Set(d, -2.671135217e-02f));
  p = hn::MulAdd(p, t, hn::Set(d, 1.128018200e-01f));
  p = hn::MulAdd(p, t, hn::Set(d, -3.761232793e-01f));
  p = hn::MulAdd(p, t, hn::Set(d, 1.128379107e+00f));
  const V small = hn::Mul(ax, p);

  const V u = hn::Mul(hn::Sub(ax, hn::Set(d, 2.46f)), hn::Set(d, 1.0f / 1.46f));
  V q = hn::Set(d, 8.559578564e-04f);
  q = hn::MulAdd(q, u, hn::Set(d, -1.633298234e-03f));
  q = hn::MulAdd(q, u, hn::Set(d, -2.273723017e-03f));
  q = hn::MulAdd(q, u, hn::Set(d, 9.093175642e-03f));
  q = hn::MulAdd(q, u, hn::Set(d, -8.075063117e-03f));
  q = hn::MulAdd(q, u, hn::Set(d, -6.535345223e-03f));
  q = hn::MulAdd(q, u, hn::Set(d, 2.870274894e-02f));
  q = hn::MulAdd(q, u, hn::Set(d, -4.509447888e-02f));
  q = hn::MulAdd(q, u, hn::Set(d, 4.500474781e-02f));
  q = hn::MulAdd(q, u, hn::Set(d, -3.060161881e-02f));
  q = hn::MulAdd(q, u, hn::Set(d, 1.393163297e-02f));
  q = hn::MulAdd(q, u, hn::Set(d, -3.878042335e-03f));
  q = hn::MulAdd(q, u, hn::Set(d, 5.033267662e-04f));
  const V large = hn::Sub(hn::Set(d, 1.0f), q);

  const V magnitude = hn::IfThenElse(hn::Lt(ax, hn::Set(d, 1.0f)), small, large);
  return hn::IfThenElse(hn::IsNaN(x), x, hn::CopySign(magnitude, x));
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::simd_math
HWY_AFTER_NAMESPACE();

#endif  // MOTE_CPU_SIMD_MATH_INL_H_
