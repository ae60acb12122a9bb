// Vulkan kernels of Softmax and LogSoftmax (softmax.comp or its subgroup
// twin), along any axis.
#include <string>

#include "runtime/core/shape_util.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/softmax.hpp"
#include "runtime/vulkan/kernels/rows.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

struct SoftmaxPush {
  uint32_t rows, axis, inner;
};

Status plan_softmax(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::F32}));
  const Tensor& x = ctx.in(0);
  if (x.numel() == 0) return ctx.unsupported("empty tensor");
  if (!fits_u32(x.numel())) return ctx.unsupported("more than 2^31 elements");
  auto axis = normalize_axis(softmax_axis_attr(ctx.op), x.rank());
  if (!axis.ok()) return axis.status();
  const AxisSplit s = split_at_axis(x.shape(), *axis);
  SoftmaxPush push{static_cast<uint32_t>(s.outer * s.inner), static_cast<uint32_t>(s.axis),
                   static_cast<uint32_t>(s.inner)};
  const int32_t is_log = ctx.op.type == fb::OpType::LogSoftmax;
  // A row's elements are `inner` apart: with inner > 1, one invocation per
  // row reads along with its neighbours, unless rows are few and long.
  // Three passes over the row.
  bool per_thread = s.inner > 1 && (push.rows >= 1024 || s.axis <= 64) && 3 * s.axis <= kMaxInvocationLoop / 4;
  if (per_thread) {
    ctx.dispatch_1d(ShaderId::kSoftmax, {ctx.input(0), ctx.output(0)}, push, push.rows).constants = {is_log, 1};
    return {};
  }
  RowLaunch launch = workgroup_per_row(ctx, push.rows, s.axis);
  if (3 * ceil_div(s.axis, launch.local[0]) + 64 > int64_t{ctx.features.max_loop_iterations}) {
    return ctx.unsupported("axis of " + std::to_string(s.axis) + " elements is too long per invocation");
  }
  ctx.dispatch(with_subgroups(ctx, ShaderId::kSoftmax, ShaderId::kSoftmaxSubgroup), {ctx.input(0), ctx.output(0)},
               push, launch.groups, launch.local)
      .constants = {is_log, 0};
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(Softmax, mote::vk::plan_softmax);
MOTE_VK_KERNEL(LogSoftmax, mote::vk::plan_softmax);
