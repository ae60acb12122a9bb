// Vulkan kernels of Slice (a strided copy: starts and steps known at plan
// time, negative steps included) and Gather (gather.comp, indices read on
// the device so they may be computed at run time).
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/slice_gather.hpp"
#include "runtime/vulkan/kernels/copy_strided.hpp"
#include "runtime/vulkan/kernels/known_inputs.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"

namespace mote::vk {
namespace {

Status plan_slice(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_known(ctx, {1, 2, 3, 4}));
  const Shape& in = ctx.in(0).shape();
  auto axes = resolve_slice(in, ctx.in(1), ctx.in(2), ctx.has_input(3) ? &ctx.in(3) : nullptr,
                            ctx.has_input(4) ? &ctx.in(4) : nullptr);
  if (!axes.ok()) return axes.status();
  const Shape strides = row_major_strides(in);
  StridedView v;
  v.dims = ctx.out(0).shape();
  for (size_t d = 0; d < in.size(); ++d) {
    v.stride.push_back((*axes)[d].step * strides[d]);
    v.base += (*axes)[d].start * strides[d];
  }
  return add_strided_copy(ctx, std::move(v), ctx.input(0), ctx.output(0), ctx.out(0).dtype());
}

struct GatherPush {
  uint32_t n, inner, dim, count;
};

Status plan_gather(PlanContext& ctx) {
  const Tensor& data = ctx.in(0);
  const DType index_type = ctx.in(1).dtype();
  if (index_type != DType::I32 && index_type != DType::I64) return ctx.unsupported("indices are not i32 or i64");
  auto axis = normalize_axis(attrs<fb::AxisAttrsT>(ctx.op).axis, data.rank());
  if (!axis.ok()) return axis.status();
  const AxisSplit s = split_at_axis(data.shape(), *axis);
  const int64_t n = ctx.out(0).numel();
  if (!fits_u32(n) || !fits_u32(data.numel())) return ctx.unsupported("more than 2^31 elements");
  GatherPush push{static_cast<uint32_t>(n), static_cast<uint32_t>(s.inner), static_cast<uint32_t>(s.axis),
                  static_cast<uint32_t>(ctx.in(1).numel())};
  ElementKind kind = element_kind(data.dtype());
  int64_t per = elements_per_invocation(kind);
  ctx.dispatch(ShaderId::kGather, {ctx.input(0), ctx.input(1), ctx.output(0)}, push,
               ctx.groups_1d((n + per - 1) / per, 64))
      .constants = {kind, index_type == DType::I64 ? 1 : 0};
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(Slice, mote::vk::plan_slice);
MOTE_VK_KERNEL(Gather, mote::vk::plan_gather);
