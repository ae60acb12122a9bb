// Vulkan kernels of Softmax and LogSoftmax (softmax.comp or its subgroup
// twin), along any axis.
#include <string>

#include "runtime/core/shape_util.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/softmax.hpp"
#include "runtime/vulkan/kernels/rows.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/kernels/softmax_dispatch.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

struct SoftmaxPush {
  uint32_t rows, axis, inner;
};

}  // namespace

Status dispatch_softmax(PlanContext& ctx, TensorArg in, TensorArg out, const AxisSplit& s, bool is_log,
                        bool empty_rows_zero) {
  SoftmaxPush push{static_cast<uint32_t>(s.outer * s.inner), static_cast<uint32_t>(s.axis),
                   static_cast<uint32_t>(s.inner)};
  const int32_t log_flag = is_log ? 1 : 0, empty_zero = empty_rows_zero ? 1 : 0;
  // A row's elements are `inner` apart: with inner > 1, one invocation per
  // row reads along with its neighbours, unless rows are few and long.
  // Contiguous rows as short as the device profile folds per invocation
  // (CPU-type devices) go one per invocation too. Three passes over the row.
  const bool per_thread = s.inner > 1 ? (push.rows >= 1024 || s.axis <= 64) && 3 * s.axis <= kMaxInvocationLoop / 4
                                      : short_row_per_invocation(ctx, s.axis, 3);
  if (per_thread) {
    ctx.dispatch_1d(ShaderId::kSoftmax, {in, out}, push, push.rows).constants = {log_flag, 1, empty_zero};
    return {};
  }
  RowLaunch launch = workgroup_per_row(ctx, push.rows, s.axis);
  if (3 * ceil_div(s.axis, launch.local[0]) + 64 > int64_t{ctx.features.max_loop_iterations}) {
    return ctx.unsupported("axis of " + std::to_string(s.axis) + " elements is too long per invocation");
  }
  ctx.dispatch(with_subgroups(ctx, ShaderId::kSoftmax, ShaderId::kSoftmaxSubgroup), {in, out}, push, launch.groups,
               launch.local)
      .constants = {log_flag, 0, empty_zero};
  return {};
}

namespace {

Status plan_softmax(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::F32}));
  const Tensor& x = ctx.in(0);
  if (x.numel() == 0) return ctx.unsupported("empty tensor");
  if (!fits_u32(x.numel())) return ctx.unsupported("more than 2^31 elements");
  auto axis = normalize_axis(softmax_axis_attr(ctx.op), x.rank());
  if (!axis.ok()) return axis.status();
  return dispatch_softmax(ctx, ctx.input(0), ctx.output(0), split_at_axis(x.shape(), *axis),
                          ctx.op.type == fb::OpType::LogSoftmax);
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(Softmax, mote::vk::plan_softmax);
MOTE_VK_KERNEL(LogSoftmax, mote::vk::plan_softmax);
