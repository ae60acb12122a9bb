// Vulkan kernel of Cast between f32, f16, i32, i64 and bool (cast.comp);
// other dtypes stay on the CPU.
#include "runtime/vulkan/kernels/cast_kinds.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

struct CastPush {
  uint32_t n;
};

Status plan_cast(PlanContext& ctx) {
  const int from = cast_kind(ctx.in(0).dtype()), to = cast_kind(ctx.out(0).dtype());
  if (from < 0 || to < 0) {
    return ctx.unsupported(std::string("cast from ") + dtype_name(ctx.in(0).dtype()) + " to " +
                           dtype_name(ctx.out(0).dtype()));
  }
  if ((from == kCastHalf || to == kCastHalf) && !ctx.features.half_conversions) {
    return ctx.unsupported("this driver miscompiles f16 conversions (a device quirk, runtime/vulkan/quirks.cpp)");
  }
  const int64_t n = ctx.out(0).numel();
  if (!fits_u32(n)) return ctx.unsupported("more than 2^31 elements");
  const int64_t per =
      to == kCastBool ? 4 : (to == kCastHalf ? 2 : 1);  // bool and f16 outputs: one word per invocation
  ctx.dispatch(ShaderId::kCast, {ctx.input(0), ctx.output(0)}, CastPush{static_cast<uint32_t>(n)},
               ctx.groups_1d((n + per - 1) / per, 64))
      .constants = {from, to};
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(Cast, mote::vk::plan_cast);
