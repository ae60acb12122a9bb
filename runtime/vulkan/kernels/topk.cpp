// Vulkan kernel of TopK (topk.comp): one workgroup per slice picks its K
// elements in order, O(K * axis / workgroup) steps per invocation; slices
// where that is too much run on the CPU, as do integer inputs.
#include <string>

#include "runtime/core/shape_util.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/topk.hpp"
#include "runtime/vulkan/kernels/rows.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

struct TopKPush {
  uint32_t slices, axis, inner, k;
};

Status plan_topk(PlanContext& ctx) {
  const Tensor& x = ctx.in(0);
  if (x.dtype() != DType::F32) {
    return ctx.unsupported(std::string("input is ") + dtype_name(x.dtype()) + ", the Vulkan kernel takes f32");
  }
  if (!ctx.in(1).raw()) return ctx.unsupported("K computed at run time");
  if (x.numel() == 0 || ctx.out(0).numel() == 0) return ctx.unsupported("empty tensor");
  if (!fits_u32(x.numel())) return ctx.unsupported("more than 2^31 elements");
  const auto& a = attrs<fb::TopKAttrsT>(ctx.op);
  auto axis = normalize_axis(a.axis, x.rank());
  if (!axis.ok()) return axis.status();
  auto k = topk_k(&ctx.in(1), x.dim(*axis));
  if (!k.ok()) return k.status();
  const AxisSplit s = split_at_axis(x.shape(), *axis);
  RowLaunch launch = workgroup_per_row(ctx, s.outer * s.inner, s.axis);
  // Per pick: a strided scan, then the tree over the workgroup.
  if (*k * (ceil_div(s.axis, launch.local[0]) + 10) > int64_t{ctx.features.max_loop_iterations}) {
    return ctx.unsupported("K " + std::to_string(*k) + " over an axis of " + std::to_string(s.axis) +
                           " is too much selection work per invocation");
  }
  TopKPush push{static_cast<uint32_t>(s.outer * s.inner), static_cast<uint32_t>(s.axis),
                static_cast<uint32_t>(s.inner), static_cast<uint32_t>(*k)};
  const bool with_indices = ctx.outputs.size() > 1;
  // Without Indices, the binding aliases Values and is never written.
  TensorArg indices = with_indices ? ctx.output(1) : ctx.output(0);
  ctx.dispatch(ShaderId::kTopk, {ctx.input(0), ctx.output(0), indices}, push, launch.groups, launch.local).constants =
      {a.largest, with_indices};
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(TopK, mote::vk::plan_topk);
