// How the NN kernels (Conv, ConvTranspose, Gemm, MatMul) apply the activation
// a converter fused into them (Op.fused): Relu and Clip are clamps the GEMM
// epilogue applies as it stores; the other kinds (HardSwish, Sigmoid,
// LeakyRelu, SiLU) run apply_fused_activation (activation.hpp) over each
// output tile while it is still in cache, called by the GEMM itself
// (gemm_epilogue) or by kernels that store their outputs otherwise
// (needs_pass: depthwise, Winograd). The kernels writing channel blocks
// (pointwise_blocked, the depthwise channel-block tiles) apply SiLU and
// HardSwish in registers instead (tile_activation.hpp).
#pragma once

#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/cpu/activation.hpp"
#include "runtime/cpu/binary_simd.hpp"
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

// clamp_epilogue(act) plus, for the kinds that are more than a clamp, the
// activation run by the GEMM on each finished tile while it is in cache.
inline GemmEpilogue gemm_epilogue(const fb::FusedActivationT* act) {
  GemmEpilogue e = clamp_epilogue(act);
  if (act && act->kind != fb::ActivationKind::None && act->kind != fb::ActivationKind::Relu &&
      act->kind != fb::ActivationKind::Clip) {
    e.activation = [](const void* state, float* data, int64_t n) {
      apply_fused_activation(static_cast<const fb::FusedActivationT*>(state), data, n);
    };
    e.activation_state = act;
  }
  return e;
}

// y[i] = act(y[i] + residual[i]) for i < n: how the kernels that cannot add
// a Conv's residual as they store (depthwise and Winograd, per finished
// tile; the turned product, after its transpose) finish their outputs.
inline void add_residual_and_activate(const fb::FusedActivationT* act, float* y, const float* residual, int64_t n) {
  static const BinaryRowFn add = binary_row_fn(BinaryFn::kAdd, DType::F32, DType::F32);
  add(y, 1, residual, 1, y, n);
  apply_fused_activation(act, y, n);
}

// True when `act` is more than a clamp and needs a pass after the product.
inline bool needs_pass(const fb::FusedActivationT* act) {
  return act && act->kind != fb::ActivationKind::None && act->kind != fb::ActivationKind::Relu &&
         act->kind != fb::ActivationKind::Clip;
}

}  // namespace mote::cpu::fused
