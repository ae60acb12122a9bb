// Vulkan kernels of the axis permutations: Transpose, and DepthToSpace /
// SpaceToDepth seen as reshape-transpose-reshape over rank-6 views.
#include "runtime/ops/transpose.hpp"
#include "runtime/vulkan/kernels/copy_strided.hpp"

namespace mote::vk {
namespace {

Status plan_transpose(PlanContext& ctx) {
  auto perm = transpose_perm(ctx.op, ctx.in(0).rank());
  if (!perm.ok()) return perm.status();
  return add_strided_copy(ctx, permuted_view(ctx.in(0).shape(), *perm), ctx.input(0), ctx.output(0),
                          ctx.out(0).dtype());
}

// With C' = C / b^2 for DepthToSpace (the output channels), the input
// [N, C, H, W] is viewed as
//   DCR: [N, b, b, C', H, W] -> output order [N, C', H, b, W, b]
//   CRD: [N, C', b, b, H, W] -> output order [N, C', H, b, W, b]
// and SpaceToDepth views [N, C, H', b, W', b] -> [N, b, b, C, H', W'].
Status plan_depth_space(PlanContext& ctx) {
  const Shape& in = ctx.in(0).shape();
  if (in.size() != 4) return ctx.unsupported("input rank is not 4");
  const auto& a = attrs<fb::DepthSpaceAttrsT>(ctx.op);
  const int64_t b = a.blocksize, n = in[0], c = in[1], h = in[2], w = in[3];
  Shape view;
  std::vector<int> perm;
  if (ctx.op.type == fb::OpType::SpaceToDepth) {
    view = {n, c, h / b, b, w / b, b};
    perm = {0, 3, 5, 1, 2, 4};
  } else if (a.mode == fb::DepthToSpaceMode::DCR) {
    view = {n, b, b, c / (b * b), h, w};
    perm = {0, 3, 4, 1, 5, 2};
  } else {
    view = {n, c / (b * b), b, b, h, w};
    perm = {0, 1, 4, 2, 5, 3};
  }
  return add_strided_copy(ctx, permuted_view(view, perm), ctx.input(0), ctx.output(0), ctx.out(0).dtype());
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(Transpose, mote::vk::plan_transpose);
MOTE_VK_KERNEL(DepthToSpace, mote::vk::plan_depth_space);
MOTE_VK_KERNEL(SpaceToDepth, mote::vk::plan_depth_space);
