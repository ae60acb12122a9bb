// Vulkan kernels of MaxPool (with its optional Indices) and AveragePool over
// 1 to 3 spatial dims (pool.comp); window geometry from pool_geometry(), as
// the CPU kernels. The global pools are reductions (reduce.cpp).
#include "runtime/ops/pool.hpp"
#include "runtime/vulkan/kernels/rows.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

struct PoolPush {
  uint32_t n;
  std::array<uint32_t, 3> in, out, kernel, stride, dilation, pad_begin, pad_end;
};

std::array<uint32_t, 3> u32x3(const std::vector<int64_t>& v) {
  return {static_cast<uint32_t>(v[0]), static_cast<uint32_t>(v[1]), static_cast<uint32_t>(v[2])};
}

Status plan_pool(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::F32, DType::I64}));  // I64: MaxPool's Indices
  const Tensor& x = ctx.in(0);
  if (x.dtype() != DType::F32) return ctx.unsupported("input is not f32");
  if (x.numel() == 0 || ctx.out(0).numel() == 0) return ctx.unsupported("empty tensor");
  if (!fits_u32(x.numel()) || !fits_u32(ctx.out(0).numel())) return ctx.unsupported("more than 2^31 elements");
  const auto& a = attrs<fb::PoolAttrsT>(ctx.op);
  auto geometry = pool_geometry(a, x.shape());
  if (!geometry.ok()) return geometry.status();
  const PoolGeometry g = geometry->as_3d();
  if (g.kernel[0] * g.kernel[1] * g.kernel[2] + g.kernel[0] * g.kernel[1] + g.kernel[0] > int64_t{ctx.features.max_loop_iterations}) {
    return ctx.unsupported("window of more than 65535 taps for one invocation");
  }
  PoolPush push{static_cast<uint32_t>(ctx.out(0).numel()),
                u32x3(g.in),
                u32x3(g.out),
                u32x3(g.kernel),
                u32x3(g.stride),
                u32x3(g.dilation),
                u32x3(g.pad_begin),
                u32x3(g.pad_end)};
  const bool is_max = ctx.op.type == fb::OpType::MaxPool;
  const bool with_indices = is_max && ctx.outputs.size() > 1;
  // Without Indices, the binding aliases Y and is never written.
  TensorArg indices = with_indices ? ctx.output(1) : ctx.output(0);
  ctx.dispatch_1d(ShaderId::kPool, {ctx.input(0), ctx.output(0), indices}, push, push.n).constants = {
      is_max, a.count_include_pad, with_indices};
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(MaxPool, mote::vk::plan_pool);
MOTE_VK_KERNEL(AveragePool, mote::vk::plan_pool);
