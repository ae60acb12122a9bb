// Vulkan kernel of ConvTranspose (1-D and 2-D): conv_transpose.comp gathers
// each output element from the inputs the reference would scatter onto it,
// so no atomics or zero-fill pass are needed.
#include "runtime/vulkan/kernels/conv_plan.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/kernels/unary_codes.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

constexpr size_t kH = kConvH, kW = kConvW;

struct ConvTransposePush {
  uint32_t n, out_pixels, out_w, out_channels, out_per_group, in_per_group, in_channels, in_h, in_w, kernel_h,
      kernel_w;
  ConvWindow window;
  float act_a, act_b;
};
static_assert(sizeof(ConvTransposePush) == 76, "must match conv_transpose.comp's push block");

Status plan_conv_transpose(PlanContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(ConvGeometry g, plannable_conv_geometry(ctx, /*transposed=*/true));
  // Pads of an enlarged output_shape are negative and shift the gather the
  // same way; both fit easily in int32 given the sizes above.
  FusedCode act = fused_code(ctx.op.fused.get());
  ConvTransposePush push{};
  push.n = static_cast<uint32_t>(ctx.out(0).numel());
  push.out_pixels = static_cast<uint32_t>(g.out_pixels());
  push.out_w = static_cast<uint32_t>(g.out_size[kW]);
  push.out_channels = static_cast<uint32_t>(g.out_channels);
  push.out_per_group = static_cast<uint32_t>(g.out_channels_per_group());
  push.in_per_group = static_cast<uint32_t>(g.in_channels_per_group());
  push.in_channels = static_cast<uint32_t>(g.in_channels);
  push.in_h = static_cast<uint32_t>(g.in_size[kH]);
  push.in_w = static_cast<uint32_t>(g.in_size[kW]);
  push.kernel_h = static_cast<uint32_t>(g.kernel[kH]);
  push.kernel_w = static_cast<uint32_t>(g.kernel[kW]);
  push.window = conv_window(g);
  push.act_a = act.a;
  push.act_b = act.b;
  TensorArg bias = ctx.input_or(2, ctx.input(1));  // aliases W when absent (never read)
  ctx.dispatch_1d(ShaderId::kConvTranspose, {ctx.input(0), ctx.input(1), bias, ctx.output(0)}, push, push.n)
      .constants = {act.code, ctx.has_input(2) ? 1 : 0};
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(ConvTranspose, mote::vk::plan_conv_transpose);
