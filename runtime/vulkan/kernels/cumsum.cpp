// Vulkan kernel of CumSum (cumsum.comp): an invocation or a workgroup per
// line along the axis. Float data with the axis known at prepare time;
// integer data runs on the CPU.
#include <string>

#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/cumsum.hpp"
#include "runtime/vulkan/kernels/rows.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

struct CumSumPush {
  uint32_t n, axis, inner;
};

Status plan_cumsum(PlanContext& ctx) {
  const Tensor& x = ctx.in(0);
  if (x.dtype() != DType::F32) {
    return ctx.unsupported(std::string("input is ") + dtype_name(x.dtype()) + ", the Vulkan kernel takes f32");
  }
  if (!ctx.in(1).raw()) return ctx.unsupported("axis computed at run time");
  if (x.numel() == 0) return ctx.unsupported("empty tensor");
  if (!fits_u32(x.numel())) return ctx.unsupported("more than 2^31 elements");
  auto axis = cumsum_axis(ctx.in(1), x.rank());
  if (!axis.ok()) return axis.status();
  const AxisSplit s = split_at_axis(x.shape(), *axis);
  CumSumPush push{static_cast<uint32_t>(s.outer * s.inner), static_cast<uint32_t>(s.axis),
                  static_cast<uint32_t>(s.inner)};
  const auto& a = attrs<fb::CumSumAttrsT>(ctx.op);
  // An invocation per line for short lines and for many interleaved ones,
  // else a workgroup per line.
  bool per_thread = s.axis <= 64 || (s.inner > 1 && push.n >= 1024 && s.axis <= kMaxInvocationLoop / 4);
  if (per_thread) {
    ctx.dispatch_1d(ShaderId::kCumsum, {ctx.input(0), ctx.output(0)}, push, push.n).constants = {a.exclusive,
                                                                                               a.reverse, 1};
    return {};
  }
  RowLaunch launch = workgroup_per_row(ctx, push.n, s.axis);
  // Per chunk: the load and the scan's log2(workgroup) steps.
  if (ceil_div(s.axis, launch.local[0]) * 10 > int64_t{ctx.features.max_loop_iterations}) {
    return ctx.unsupported("axis of " + std::to_string(s.axis) + " elements is too long per invocation");
  }
  ctx.dispatch(ShaderId::kCumsum, {ctx.input(0), ctx.output(0)}, push, launch.groups, launch.local).constants = {
      a.exclusive, a.reverse, 0};
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(CumSum, mote::vk::plan_cumsum);
