// Clamping that keeps NaN, for the kernels' fused Relu and Clip: x86's
// max/min return their second operand when either is NaN and Highway's
// scalar target its first, so hn::Min(hn::Max(x, lo), hi) turned a NaN into
// a bound on some targets and not on others. Comparisons are false for NaN
// on every target, so selecting on them keeps it, as the reference
// (std::max(x, 0.0)) does.
//
// A per-target -inl header: include it after hwy/highway.h in a file compiled
// through hwy/foreach_target.h.
#if defined(MOTE_CPU_SIMD_CLAMP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MOTE_CPU_SIMD_CLAMP_INL_H_
#undef MOTE_CPU_SIMD_CLAMP_INL_H_
#else
#define MOTE_CPU_SIMD_CLAMP_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace mote::simd_clamp {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// x raised to at least lo (a Relu's bound); NaN lanes stay NaN.
template <class V>
HWY_INLINE V RaiseKeepingNaN(V x, V lo) {
  return hn::IfThenElse(hn::Lt(x, lo), lo, x);
}

// x limited to [lo, hi]; NaN lanes stay NaN.
template <class V>
HWY_INLINE V ClampKeepingNaN(V x, V lo, V hi) {
  x = RaiseKeepingNaN(x, lo);
  return hn::IfThenElse(hn::Gt(x, hi), hi, x);
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::simd_clamp
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
