// Fused activations that a kernel applies to its output vectors in
// registers, after the clamp and before the store, instead of in a pass over
// the stored output afterwards. SiLU's division and polynomial overlap across
// a tile's independent vectors there; as a pass (apply_fused_activation) it
// reloads what was stored, from L2 where a task's output outgrew L1.
// simd_tile_activation-inl.h computes them; kernels that do not take a
// TileActivation leave every activation to the pass.
#pragma once

#include <cstdint>

#include "runtime/core/attrs.hpp"

namespace mote::cpu {

enum class TileActivation : uint8_t { kNone, kSiLU, kHardSwish };

// The in-register form of `act`, or kNone where it has none (no activation,
// or a clamp, which the kernels apply anyway, or a kind left to the pass).
inline TileActivation tile_activation(const fb::FusedActivationT* act) {
  if (!act) return TileActivation::kNone;
  switch (act->kind) {
    case fb::ActivationKind::SiLU:
      return TileActivation::kSiLU;
    case fb::ActivationKind::HardSwish:
      return TileActivation::kHardSwish;
    default:
      return TileActivation::kNone;
  }
}

}  // namespace mote::cpu
