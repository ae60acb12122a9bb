// Activation codes of shaders/activation.glsl, and the mapping of fused
// activations onto them, for every kernel with an activation epilogue.
#pragma once

#include "runtime/core/attrs.hpp"

namespace mote::vk {

enum ActivationCode : int {
  kActIdentity = 0, kActSqrt, kActExp, kActLog, kActAbs, kActNeg, kActReciprocal, kActRelu, kActLeakyRelu,
  kActSigmoid, kActTanh, kActHardSigmoid, kActHardSwish, kActElu, kActSelu, kActGelu, kActGeluTanh, kActErf,
  kActSoftplus, kActSin, kActCos, kActFloor, kActCeil, kActRound, kActSign, kActClip, kActSilu,
};

// A fused activation as (code, a, b) for activation(code, x, a, b, c).
struct FusedCode {
  int code = kActIdentity;
  float a = 0.0f;
  float b = 0.0f;
};
FusedCode fused_code(const fb::FusedActivationT* fused);

}  // namespace mote::vk
