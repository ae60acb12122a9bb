// Vulkan kernels of MaxPool (with its optional Indices) and AveragePool over
// 1 to 3 spatial dims (pool.comp); window geometry from pool_geometry(), as
// the CPU kernels. MaxPool on 8-bit codes (between an int8 model's
// quantised ops) takes qlinear_pool.comp. The global pools are reductions
// (reduce.cpp).
#include "runtime/ops/pool.hpp"

#include "runtime/vulkan/kernels/pool_window.hpp"
#include "runtime/vulkan/kernels/quant_args.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

Status plan_pool(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::F32, DType::I64, DType::U8, DType::I8}));  // I64: MaxPool's Indices
  const Tensor& x = ctx.in(0);
  const bool is_max = ctx.op.type == fb::OpType::MaxPool;
  const bool with_indices = is_max && ctx.outputs.size() > 1;
  const bool bytes = is_8bit(x.dtype());
  if (x.dtype() != DType::F32 && !(bytes && is_max && !with_indices)) {
    return ctx.unsupported("input is not f32 (or 8-bit, for MaxPool without Indices)");
  }
  if (bytes) MOTE_RETURN_IF_ERROR(require_int8_shaders(ctx));
  if (x.numel() == 0 || ctx.out(0).numel() == 0) return ctx.unsupported("empty tensor");
  if (!fits_u32(x.numel()) || !fits_u32(ctx.out(0).numel())) return ctx.unsupported("more than 2^31 elements");
  const auto& a = attrs<fb::PoolAttrsT>(ctx.op);
  auto geometry = pool_geometry(a, x.shape());
  if (!geometry.ok()) return geometry.status();
  MOTE_ASSIGN_OR_RETURN(PoolPush push, pool_push(ctx, geometry->as_3d(), ctx.out(0).numel()));
  if (bytes) {
    dispatch_quantized_pool(ctx, push, /*is_max=*/true, false, QUnaryParams{});
    return {};
  }
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
