// Vulkan kernels of the backward ops of training graphs (ops/gradients.cpp):
// ConvGradWeight on conv_grad_weight.comp, MaxPoolGrad and AveragePoolGrad
// on pool_grad.comp. Geometry comes from resolve_conv() and pool_geometry(),
// as in the reference kernels, so the windows agree with the forward ops.
#include <algorithm>

#include "runtime/ops/conv_geometry.hpp"
#include "runtime/ops/pool.hpp"
#include "runtime/vulkan/kernels/rows.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

template <class T, class V>
std::array<T, 3> x3(const V& v) {
  return {static_cast<T>(v[0]), static_cast<T>(v[1]), static_cast<T>(v[2])};
}

Status require_plannable(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::F32}));
  for (const Tensor* t : {&ctx.in(0), &ctx.in(1), &ctx.out(0)}) {
    if (t->numel() == 0) return ctx.unsupported("empty tensor");
    if (!fits_u32(t->numel())) return ctx.unsupported("more than 2^31 elements");
  }
  return {};
}

struct ConvGradWeightPush {
  uint32_t n_weights, batch, out_pixels, in_channels, out_channels, in_per_group, out_per_group;
  std::array<uint32_t, 3> in, out, kernel;
  std::array<int32_t, 3> stride, dilation, pad_begin;
};
static_assert(sizeof(ConvGradWeightPush) == 100, "must match conv_grad_weight.comp's push block");

// Output positions along the width one work item covers (the shader's RUN).
constexpr int64_t kConvGradRun = 64;

Status plan_conv_grad_weight(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_plannable(ctx));
  auto resolved = resolve_conv(attrs<fb::ConvAttrsT>(ctx.op), ctx.in(0).shape(), ctx.out(0).shape());
  if (!resolved.ok()) return resolved.status();
  const ConvGeometry& g = *resolved;
  // Work items of the sum (see the shader) and the loop iterations of each.
  const int64_t runs_per_row = ceil_div(g.out_size[2], kConvGradRun);
  const int64_t items = g.batch * g.out_size[0] * g.out_size[1] * runs_per_row;
  const int64_t per_item = std::min(g.out_size[2], kConvGradRun) + 1;
  ConvGradWeightPush push{static_cast<uint32_t>(ctx.out(0).numel()),
                          static_cast<uint32_t>(g.batch),
                          static_cast<uint32_t>(g.out_pixels()),
                          static_cast<uint32_t>(g.in_channels),
                          static_cast<uint32_t>(g.out_channels),
                          static_cast<uint32_t>(g.in_channels_per_group()),
                          static_cast<uint32_t>(g.out_channels_per_group()),
                          x3<uint32_t>(g.in_size),
                          x3<uint32_t>(g.out_size),
                          x3<uint32_t>(g.kernel),
                          x3<int32_t>(g.stride),
                          x3<int32_t>(g.dilation),
                          x3<int32_t>(g.pad_begin)};
  std::vector<TensorArg> args = {ctx.input(0), ctx.input(1), ctx.output(0)};
  // As Reduce* chooses: a workgroup per weight pays for its barriers only
  // when there are few weights or their sums are long.
  const int64_t iterations = items * per_item;
  const bool per_thread =
      (push.n_weights >= 1024 || iterations <= 64) && iterations <= kMaxInvocationLoop / 4;
  if (per_thread) {
    ctx.dispatch_1d(ShaderId::kConvGradWeight, args, push, push.n_weights).constants = {1};
    return {};
  }
  RowLaunch launch = workgroup_per_row(ctx, push.n_weights, g.batch * g.out_pixels());
  if (ceil_div(items, launch.local[0]) * per_item + 64 > int64_t{ctx.features.max_loop_iterations}) {
    return ctx.unsupported("a sum of " + std::to_string(g.batch * g.out_pixels()) +
                           " terms per weight is too long per invocation");
  }
  ctx.dispatch(ShaderId::kConvGradWeight, args, push, launch.groups, launch.local).constants = {0};
  return {};
}

struct PoolGradPush {
  uint32_t n;
  std::array<uint32_t, 3> in, out, kernel, stride, dilation, pad_begin, pad_end;
};
static_assert(sizeof(PoolGradPush) == 88, "must match pool_grad.comp's push block");

Status plan_pool_grad(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_plannable(ctx));
  const auto& a = attrs<fb::PoolAttrsT>(ctx.op);
  auto geometry = pool_geometry(a, ctx.in(0).shape());
  if (!geometry.ok()) return geometry.status();
  const PoolGeometry g = geometry->as_3d();
  const bool is_max = ctx.op.type == fb::OpType::MaxPoolGrad;
  // Per invocation: the windows covering one element, each rescanned (max)
  // or counted (average); all of the shader's loops together.
  int64_t windows = 1, per_window = 0, window_loops = 0;
  for (int d = 0; d < 3; ++d) {
    windows *= ceil_div((g.kernel[d] - 1) * g.dilation[d] + 1, g.stride[d]);
    window_loops += windows;
  }
  per_window = is_max ? g.kernel[0] * g.kernel[1] * g.kernel[2] + g.kernel[0] * g.kernel[1] + g.kernel[0]
                      : g.kernel[0] + g.kernel[1] + g.kernel[2] + 3;
  if (windows * per_window + window_loops > int64_t{ctx.features.max_loop_iterations}) {
    return ctx.unsupported("windows overlap too much for one invocation per input element");
  }
  PoolGradPush push{static_cast<uint32_t>(ctx.out(0).numel()),
                    x3<uint32_t>(g.in),
                    x3<uint32_t>(g.out),
                    x3<uint32_t>(g.kernel),
                    x3<uint32_t>(g.stride),
                    x3<uint32_t>(g.dilation),
                    x3<uint32_t>(g.pad_begin),
                    x3<uint32_t>(g.pad_end)};
  ctx.dispatch_1d(ShaderId::kPoolGrad, {ctx.input(0), ctx.input(1), ctx.output(0)}, push, push.n).constants = {
      is_max, a.count_include_pad};
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(ConvGradWeight, mote::vk::plan_conv_grad_weight);
MOTE_VK_KERNEL(MaxPoolGrad, mote::vk::plan_pool_grad);
MOTE_VK_KERNEL(AveragePoolGrad, mote::vk::plan_pool_grad);
