// TileActivation (tile_activation.hpp) on one vector, with the formulas of
// the standalone ops (unary_simd.cpp), so a fused layer gives what the
// activation op would.
//
// A per-target -inl header: include it after hwy/highway.h in a file compiled
// through hwy/foreach_target.h.
#if defined(MOTE_CPU_SIMD_TILE_ACTIVATION_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MOTE_CPU_SIMD_TILE_ACTIVATION_INL_H_
#undef MOTE_CPU_SIMD_TILE_ACTIVATION_INL_H_
#else
#define MOTE_CPU_SIMD_TILE_ACTIVATION_INL_H_
#endif

#include "hwy/highway.h"
#include "runtime/cpu/simd_math-inl.h"
#include "runtime/cpu/tile_activation.hpp"

HWY_BEFORE_NAMESPACE();
namespace mote::simd_tile_activation {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D>
HWY_INLINE hn::Vec<D> Activate(D d, cpu::TileActivation activation, hn::Vec<D> x) {
  switch (activation) {
    case cpu::TileActivation::kNone:
      return x;
    case cpu::TileActivation::kSiLU:
      return simd_math::HWY_NAMESPACE::SiLU(d, x);
    case cpu::TileActivation::kHardSwish: {
      // x * clamp(x / 6 + 1/2, 0, 1).
      const hn::Vec<D> gate =
          hn::Min(hn::Max(hn::MulAdd(x, hn::Set(d, 1.0f / 6.0f), hn::Set(d, 0.5f)), hn::Zero(d)), hn::Set(d, 1.0f));
      return hn::Mul(x, gate);
    }
  }
  return x;
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::simd_tile_activation
HWY_AFTER_NAMESPACE();

#endif  // include guard
