// The parameters of the parameterised unary activations, resolved in one
// place so the reference and optimised kernels cannot disagree on defaults.
#pragma once

#include "runtime/core/attrs.hpp"

namespace mote {

struct ActivationParams {
  float alpha = 0.0f;
  float beta = 0.0f;
  float gamma = 0.0f;
  bool approximate_tanh = false;  // Gelu
};

// The op's ActivationAttrs when it carries one, else ONNX's defaults for its
// type: LeakyRelu alpha 0.01; Elu alpha 1; Selu alpha 1.6732632 gamma
// 1.0507010; HardSigmoid alpha 0.2 beta 0.5; HardSwish (no attributes in
// ONNX) always alpha 1/6 beta 0.5.
ActivationParams activation_params(const fb::OpT& op);

}  // namespace mote
