// Vulkan kernels of the unary float activations: one shader (unary.comp),
// the function picked per op by a specialisation constant.
#include <limits>

#include "runtime/ops/unary.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/kernels/unary_codes.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {

FusedCode fused_code(const fb::FusedActivationT* fused) {
  if (!fused) return {};
  switch (fused->kind) {
    case fb::ActivationKind::None: return {};
    case fb::ActivationKind::Relu: return {kActRelu};
    case fb::ActivationKind::Clip: return {kActClip, fused->min, fused->max};
    case fb::ActivationKind::HardSwish: return {kActHardSwish};
    case fb::ActivationKind::Sigmoid: return {kActSigmoid};
    case fb::ActivationKind::LeakyRelu: return {kActLeakyRelu, fused->alpha};
    case fb::ActivationKind::SiLU: return {kActSilu};
    case fb::ActivationKind::HardSigmoid:
      return {kActHardSigmoid, fused->alpha, fused->beta};
  }
  return {};
}

namespace {

struct UnaryPush {
  uint32_t n;
  float alpha, beta, gamma;
};

int code_of(const fb::OpT& op) {
  switch (op.type) {
    case fb::OpType::Sqrt: return kActSqrt;
    case fb::OpType::Exp: return kActExp;
    case fb::OpType::Log: return kActLog;
    case fb::OpType::Abs: return kActAbs;
    case fb::OpType::Neg: return kActNeg;
    case fb::OpType::Reciprocal: return kActReciprocal;
    case fb::OpType::Relu: return kActRelu;
    case fb::OpType::LeakyRelu: return kActLeakyRelu;
    case fb::OpType::Sigmoid: return kActSigmoid;
    case fb::OpType::Tanh: return kActTanh;
    case fb::OpType::HardSigmoid: return kActHardSigmoid;
    case fb::OpType::HardSwish: return kActHardSwish;
    case fb::OpType::Elu: return kActElu;
    case fb::OpType::Selu: return kActSelu;
    case fb::OpType::Gelu: return activation_params(op).approximate_tanh ? kActGeluTanh : kActGelu;
    case fb::OpType::Erf: return kActErf;
    case fb::OpType::Softplus: return kActSoftplus;
    case fb::OpType::Sin: return kActSin;
    case fb::OpType::Cos: return kActCos;
    case fb::OpType::Floor: return kActFloor;
    case fb::OpType::Ceil: return kActCeil;
    case fb::OpType::Round: return kActRound;
    case fb::OpType::Sign: return kActSign;
    case fb::OpType::Clip: return kActClip;
    default: return kActIdentity;
  }
}

// Clip's optional min and max inputs, which must be known at prepare time.
Status clip_bounds(PlanContext& ctx, float& lo, float& hi) {
  lo = -std::numeric_limits<float>::infinity();
  hi = std::numeric_limits<float>::infinity();
  for (size_t i = 1; i < 3; ++i) {
    if (!ctx.has_input(i)) continue;
    if (!ctx.in(i).raw()) return ctx.unsupported("min/max computed at run time");
    (i == 1 ? lo : hi) = ctx.in(i).data<float>()[0];
  }
  return {};
}

Status plan_unary(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::F32}));
  int64_t n = ctx.out(0).numel();
  if (!fits_u32(n)) return ctx.unsupported("more than 2^31 elements");
  ActivationParams a = activation_params(ctx.op);
  UnaryPush push{static_cast<uint32_t>(n), a.alpha, a.beta, a.gamma};
  if (ctx.op.type == fb::OpType::Clip) MOTE_RETURN_IF_ERROR(clip_bounds(ctx, push.alpha, push.beta));
  ctx.dispatch_1d(ShaderId::kUnary, {ctx.input(0), ctx.output(0)}, push, n).constants = {code_of(ctx.op)};
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(Sqrt, mote::vk::plan_unary);
MOTE_VK_KERNEL(Exp, mote::vk::plan_unary);
MOTE_VK_KERNEL(Log, mote::vk::plan_unary);
MOTE_VK_KERNEL(Abs, mote::vk::plan_unary);
MOTE_VK_KERNEL(Neg, mote::vk::plan_unary);
MOTE_VK_KERNEL(Reciprocal, mote::vk::plan_unary);
MOTE_VK_KERNEL(Relu, mote::vk::plan_unary);
MOTE_VK_KERNEL(LeakyRelu, mote::vk::plan_unary);
MOTE_VK_KERNEL(Sigmoid, mote::vk::plan_unary);
MOTE_VK_KERNEL(Tanh, mote::vk::plan_unary);
MOTE_VK_KERNEL(HardSigmoid, mote::vk::plan_unary);
MOTE_VK_KERNEL(HardSwish, mote::vk::plan_unary);
MOTE_VK_KERNEL(Elu, mote::vk::plan_unary);
MOTE_VK_KERNEL(Selu, mote::vk::plan_unary);
MOTE_VK_KERNEL(Gelu, mote::vk::plan_unary);
MOTE_VK_KERNEL(Erf, mote::vk::plan_unary);
MOTE_VK_KERNEL(Softplus, mote::vk::plan_unary);
MOTE_VK_KERNEL(Sin, mote::vk::plan_unary);
MOTE_VK_KERNEL(Cos, mote::vk::plan_unary);
MOTE_VK_KERNEL(Floor, mote::vk::plan_unary);
MOTE_VK_KERNEL(Ceil, mote::vk::plan_unary);
MOTE_VK_KERNEL(Round, mote::vk::plan_unary);
MOTE_VK_KERNEL(Sign, mote::vk::plan_unary);
MOTE_VK_KERNEL(Clip, mote::vk::plan_unary);
