// Vulkan kernels of the ops that keep the elements in order (Reshape,
// Flatten, Squeeze, Unsqueeze, Identity): the output is the input's bytes
// where the program can alias them, else a plain copy, whatever the dtype.
#include "runtime/vulkan/kernels/copy_strided.hpp"

namespace mote::vk {
namespace {

Status plan_copy(PlanContext& ctx) {
  ctx.output_views_input = true;
  return add_strided_copy(ctx, dense_view({ctx.out(0).numel()}), ctx.input(0), ctx.output(0), ctx.out(0).dtype());
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(Reshape, mote::vk::plan_copy);
MOTE_VK_KERNEL(Flatten, mote::vk::plan_copy);
MOTE_VK_KERNEL(Squeeze, mote::vk::plan_copy);
MOTE_VK_KERNEL(Unsqueeze, mote::vk::plan_copy);
MOTE_VK_KERNEL(Identity, mote::vk::plan_copy);
