// How the NN kernels (Conv, ConvTranspose, Gemm, MatMul) apply the activation
// a converter fused into them (Op.fused): Relu and Clip are clamps the GEMM
// epilogue applies as it stores; the other kinds (HardSwish, Sigmoid,
// LeakyRelu, SiLU) take one pass of apply_fused_activation (activation.hpp)
// over each output tile while it is still in cache.
#pragma once

#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/cpu/activation.hpp"
#include "runtime/cpu/gemm.hpp"

namespace mote::cpu::fused {

// False for an activation kind this build does not know (a newer or corrupt
// model): kernels refuse it rather than skip it.
inline bool known(const fb::FusedActivationT* act) {
  return act == nullptr || (act->kind >= fb::ActivationKind::MIN && act->kind <= fb::ActivationKind::MAX);
}

// The checks every NN kernel makes first: all present inputs f32 (the only
// dtype these kernels compute in) and a fused activation this build knows.
inline Status check_f32_inputs_and_activation(const KernelContext& ctx) {
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (ctx.has_input(i) && ctx.in(i).dtype() != DType::F32) {
      return ctx.fail(std::string("unsupported dtype ") + dtype_name(ctx.in(i).dtype()) + " (only f32)");
    }
  }
  if (!known(ctx.op.fused.get())) return ctx.fail("unknown fused activation");
  return {};
}

// An epilogue with the clamp bounds of a Relu or Clip and no bias; unbounded
// for every other kind.
inline GemmEpilogue clamp_epilogue(const fb::FusedActivationT* act) {
  GemmEpilogue e;
  if (act && act->kind == fb::ActivationKind::Relu) e.clamp_min = 0.0f;
  if (act && act->kind == fb::ActivationKind::Clip) {
    e.clamp_min = act->min;
    e.clamp_max = act->max;
  }
  return e;
}

// True when `act` is more than a clamp and needs a pass after the product.
inline bool needs_pass(const fb::FusedActivationT* act) {
  return act && act->kind != fb::ActivationKind::None && act->kind != fb::ActivationKind::Relu &&
         act->kind != fb::ActivationKind::Clip;
}

}  // namespace mote::cpu::fused
