// The activation a converter fused into Conv, ConvTranspose, Gemm or MatMul
// (Op.fused), applied to one value: the scalar definition the reference
// kernels use and the optimised kernels are tested against.
#pragma once

#include <algorithm>
#include <cmath>

#include "runtime/core/attrs.hpp"

namespace mote::reference {

// False for an activation kind this build does not know (a newer or corrupt
// model); kernels refuse those instead of silently skipping them.
inline bool fused_activation_known(const fb::FusedActivationT* act) {
  return act == nullptr || (act->kind >= fb::ActivationKind::MIN && act->kind <= fb::ActivationKind::MAX);
}

// `act` may be null (no activation). Computed in double so the reference
// adds no rounding of its own.
inline double apply_fused_activation(const fb::FusedActivationT* act, double x) {
  if (act == nullptr) return x;
  switch (act->kind) {
    case fb::ActivationKind::None: return x;
    case fb::ActivationKind::Relu: return std::max(x, 0.0);
    case fb::ActivationKind::Clip: return std::min(std::max(x, double{act->min}), double{act->max});
    // ONNX HardSwish: x * HardSigmoid(x) with alpha 1/6 and beta 1/2.
    case fb::ActivationKind::HardSwish: return x * std::min(std::max(x / 6.0 + 0.5, 0.0), 1.0);
    case fb::ActivationKind::Sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case fb::ActivationKind::LeakyRelu: return x >= 0.0 ? x : double{act->alpha} * x;
    case fb::ActivationKind::SiLU: return x / (1.0 + std::exp(-x));
    case fb::ActivationKind::HardSigmoid:
      return std::min(std::max(double{act->alpha} * x + double{act->beta}, 0.0), 1.0);
  }
  return x;
}

}  // namespace mote::reference
