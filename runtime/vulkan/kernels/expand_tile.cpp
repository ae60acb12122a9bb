// Vulkan kernels of Expand (broadcast strides, 0 along repeated axes) and
// Tile (coordinates wrap around the input).
#include "runtime/vulkan/kernels/copy_strided.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"

namespace mote::vk {
namespace {

Status plan_expand(PlanContext& ctx) {
  const Shape& in = ctx.in(0).shape();
  const Shape& out = ctx.out(0).shape();
  StridedView v;
  v.dims = out;
  v.stride.assign(out.size(), 0);
  Shape strides = row_major_strides(in);
  size_t skipped = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) v.stride[skipped + d] = in[d] == 1 ? 0 : strides[d];
  return add_strided_copy(ctx, std::move(v), ctx.input(0), ctx.output(0), ctx.out(0).dtype());
}

Status plan_tile(PlanContext& ctx) {
  const Shape& in = ctx.in(0).shape();
  StridedView v;
  v.dims = ctx.out(0).shape();
  v.stride = row_major_strides(in);
  v.lim = in;
  v.mode = kWrap;
  return add_strided_copy(ctx, std::move(v), ctx.input(0), ctx.output(0), ctx.out(0).dtype());
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(Expand, mote::vk::plan_expand);
MOTE_VK_KERNEL(Tile, mote::vk::plan_tile);
