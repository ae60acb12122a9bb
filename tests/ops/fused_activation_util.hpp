// Fused activations for the tests of the ops that carry one (Conv,
// ConvTranspose, Gemm, MatMul): every kind, with parameters that make Clip
// and LeakyRelu differ from Relu and HardSigmoid from ONNX's default.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/core/attrs.hpp"

namespace mote::test {

inline fb::FusedActivationT fused_activation(fb::ActivationKind kind, float alpha = 0.0f, float min = -3.4e38f,
                                             float max = 3.4e38f) {
  fb::FusedActivationT act;
  act.kind = kind;
  act.alpha = alpha;
  act.min = min;
  act.max = max;
  return act;
}

inline fb::FusedActivationT fused_hard_sigmoid(float alpha, float beta) {
  fb::FusedActivationT act = fused_activation(fb::ActivationKind::HardSigmoid, alpha);
  act.beta = beta;
  return act;
}

inline std::vector<fb::FusedActivationT> all_fused_activations() {
  return {fused_activation(fb::ActivationKind::None),
          fused_activation(fb::ActivationKind::Relu),
          fused_activation(fb::ActivationKind::Clip, 0.0f, -0.5f, 0.7f),
          fused_activation(fb::ActivationKind::HardSwish),
          fused_activation(fb::ActivationKind::Sigmoid),
          fused_activation(fb::ActivationKind::LeakyRelu, 0.1f),
          fused_activation(fb::ActivationKind::SiLU),
          fused_hard_sigmoid(0.25f, 0.4f)};
}

inline fb::OpT with_fused(fb::OpT op, const fb::FusedActivationT& act) {
  op.fused = std::make_unique<fb::FusedActivationT>(act);
  return op;
}

inline std::string fused_name(const fb::FusedActivationT& act) { return fb::EnumNameActivationKind(act.kind); }

}  // namespace mote::test
