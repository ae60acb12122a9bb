// Vulkan kernels of Concat (one dispatch per input, writing its rows into
// the wider output rows) and Split (one strided copy per output).
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/vulkan/kernels/copy_strided.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"

namespace mote::vk {
namespace {

Status plan_concat(PlanContext& ctx) {
  const Shape& out = ctx.out(0).shape();
  auto axis = normalize_axis(attrs<fb::AxisAttrsT>(ctx.op).axis, static_cast<int>(out.size()));
  if (!axis.ok()) return axis.status();
  const AxisSplit whole = split_at_axis(out, *axis);
  const DType dtype = ctx.out(0).dtype();
  const int64_t per = elements_per_invocation(element_kind(dtype));
  int64_t offset = 0;  // along the axis
  for (size_t k = 0; k < ctx.inputs.size(); ++k) {
    const Tensor& in = ctx.in(k);
    const int64_t along = in.shape()[static_cast<size_t>(*axis)];
    StridedView v = dense_view({in.numel()});
    v.row = along * whole.inner;
    v.dst_row = whole.axis * whole.inner;
    v.dst_offset = offset * whole.inner;
    offset += along;
    if (in.numel() == 0) continue;
    // Packed elements: an invocation writes a whole output word, which must
    // hold elements of this input only.
    if (v.row % per || v.dst_row % per || v.dst_offset % per) {
      return ctx.unsupported(std::string(dtype_name(dtype)) + " rows that do not fill whole 32-bit words");
    }
    MOTE_RETURN_IF_ERROR(add_strided_copy(ctx, std::move(v), ctx.input(static_cast<int>(k)), ctx.output(0), dtype));
  }
  return {};
}

Status plan_split(PlanContext& ctx) {
  const Shape& in = ctx.in(0).shape();
  auto axis = normalize_axis(attrs<fb::SplitAttrsT>(ctx.op).axis, static_cast<int>(in.size()));
  if (!axis.ok()) return axis.status();
  const size_t a = static_cast<size_t>(*axis);
  const Shape strides = row_major_strides(in);
  int64_t offset = 0;
  for (size_t k = 0; k < ctx.outputs.size(); ++k) {
    if (!ctx.outputs[k]) return ctx.unsupported("an output is missing");
    StridedView v;
    v.dims = ctx.out(k).shape();
    v.stride = strides;
    v.base = offset * strides[a];
    offset += v.dims[a];
    MOTE_RETURN_IF_ERROR(
        add_strided_copy(ctx, std::move(v), ctx.input(0), ctx.output(static_cast<int>(k)), ctx.out(k).dtype()));
  }
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(Concat, mote::vk::plan_concat);
MOTE_VK_KERNEL(Split, mote::vk::plan_split);
