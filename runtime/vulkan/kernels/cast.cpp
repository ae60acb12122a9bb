// Vulkan kernel of Cast between f32, f16, i32, i64 and bool (cast.comp);
// other dtypes stay on the CPU.
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

// cast.comp's element kinds, or -1.
int cast_kind(DType dtype) {
  switch (dtype) {
    case DType::F32: return 0;
    case DType::I32: return 1;
    case DType::I64: return 2;
    case DType::Bool: return 3;
    case DType::F16: return 4;
    default: return -1;
  }
}

struct CastPush {
  uint32_t n;
};

Status plan_cast(PlanContext& ctx) {
  const int from = cast_kind(ctx.in(0).dtype()), to = cast_kind(ctx.out(0).dtype());
  if (from < 0 || to < 0) {
    return ctx.unsupported(std::string("cast from ") + dtype_name(ctx.in(0).dtype()) + " to " +
                           dtype_name(ctx.out(0).dtype()));
  }
  if ((from == 4 || to == 4) && !ctx.features.half_conversions) {
    return ctx.unsupported("this driver miscompiles f16 conversions (a device quirk, runtime/vulkan/quirks.cpp)");
  }
  const int64_t n = ctx.out(0).numel();
  if (!fits_u32(n)) return ctx.unsupported("more than 2^31 elements");
  const int64_t per = to == 3 ? 4 : (to == 4 ? 2 : 1);  // bool and f16 outputs: one word per invocation
  ctx.dispatch(ShaderId::kCast, {ctx.input(0), ctx.output(0)}, CastPush{static_cast<uint32_t>(n)},
               ctx.groups_1d((n + per - 1) / per, 64))
      .constants = {from, to};
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(Cast, mote::vk::plan_cast);
