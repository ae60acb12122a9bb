// Vulkan kernel of training-mode Dropout (dropout.comp): one invocation per
// element, the mask recomputed from the seed (push constants) and the step
// input (bound as words, so it may change every run). Inference-mode Dropout
// is a copy that converters remove; it stays on the CPU.
#include "runtime/ops/dropout.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

struct DropoutPush {
  uint32_t n, seed_lo, seed_hi, threshold;
  float scale;
};

Status plan_dropout(PlanContext& ctx) {
  const auto& a = attrs<fb::DropoutAttrsT>(ctx.op);
  if (!a.training_mode) return ctx.unsupported("inference-mode Dropout is a copy");
  if (ctx.in(0).dtype() != DType::F32) return ctx.unsupported("input X is not f32");
  if (!ctx.has_input(1)) return ctx.unsupported("no step input");
  const DType step_type = ctx.in(1).dtype();
  if (step_type != DType::I32 && step_type != DType::I64) return ctx.unsupported("step is not i32 or i64");
  MOTE_RETURN_IF_ERROR(check_dropout_ratio(a.ratio));
  const int64_t n = ctx.out(0).numel();
  if (!fits_u32(n)) return ctx.unsupported("more than 2^31 elements");
  // The step does not matter here: only the seed, threshold and scale are read.
  const DropoutMask mask(a.seed, 0, a.ratio);
  const auto seed = static_cast<uint64_t>(a.seed);
  DropoutPush push{static_cast<uint32_t>(n), static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                   mask.threshold, mask.scale};
  ctx.dispatch_1d(ShaderId::kDropout, {ctx.input(0), ctx.input(1), ctx.output(0)}, push, n).constants = {
      step_type == DType::I64 ? 1 : 0};
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(Dropout, mote::vk::plan_dropout);
