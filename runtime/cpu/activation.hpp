// Fused activations for the kernels that produce float rows (Conv, Gemm,
// MatMul...): the activation a converter folded into the op (Op.fused) runs on
// the output while it is still in cache, through the same vectorised loops as
// the standalone activation ops.
#pragma once

#include <cstdint>

#include "runtime/core/attrs.hpp"

namespace mote::cpu {

// data[i] = act(data[i]) for i < n, in place, on the calling thread (call it
// per row or tile from the kernel's own parallel tasks). nullptr or kind None
// do nothing. Kinds: Relu, Clip (act->min, act->max), HardSwish, Sigmoid,
// LeakyRelu (act->alpha), SiLU (x * sigmoid(x)).
void apply_fused_activation(const fb::FusedActivationT* act, float* data, int64_t n);

}  // namespace mote::cpu
