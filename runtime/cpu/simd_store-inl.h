// Partial-vector stores for Highway kernels: the first `count` lanes of a
// vector, nothing written past them (the memory there can be another
// thread's row or plane).
//
// A per-target -inl header: include it after hwy/highway.h in a file compiled
// through hwy/foreach_target.h.
#if defined(MOTE_CPU_SIMD_STORE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MOTE_CPU_SIMD_STORE_INL_H_
#undef MOTE_CPU_SIMD_STORE_INL_H_
#else
#define MOTE_CPU_SIMD_STORE_INL_H_
#endif

#include <algorithm>
#include <cstddef>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace mote::simd_store {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Stores v's first `count` lanes at out (all of them when count >= Lanes).
// On x86, Highway 1.0's BlendedStore writes only the selected lanes: a masked
// store from AVX2 on, lane by lane below it (a 14-wide depthwise plane spent a
// tenth of its time copying its rows' ends out of a buffer). On NEON it loads,
// blends and stores the whole vector, rewriting the lanes past the end, and
// other targets are not checked, so they go through the stack. (Highway 1.2
// has StoreN for this; Debian 12 ships 1.0.3.)
template <class D>
HWY_INLINE void StoreFirstN(D d, hn::Vec<D> v, size_t count, hn::TFromD<D>* HWY_RESTRICT out) {
  if (count >= hn::Lanes(d)) {
    hn::StoreU(v, d, out);
    return;
  }
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR
  hn::BlendedStore(v, hn::FirstN(d, count), d, out);
#else
  HWY_ALIGN hn::TFromD<D> lanes[hn::MaxLanes(d)];
  hn::Store(v, d, lanes);
  std::copy(lanes, lanes + count, out);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::simd_store
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
