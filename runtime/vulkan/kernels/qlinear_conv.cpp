// Vulkan kernel of QLinearConv (1-D and 2-D): qlinear_conv.comp, a direct
// convolution with int32 sums, one invocation per four output bytes. The
// scales and zero points must be constants (a converted model's are): they
// are folded at plan time into one table per output channel (bias, weight
// zero point, x_scale * w_scale). Quantised tensors are bytes, so the f16
// storage mode does not touch them. Not on CPU-type devices (lavapipe):
// DeviceFeatures::int8_shaders says why (quant_args.hpp).
#include "runtime/ops/qlinear_conv.hpp"

#include <cstring>

#include "runtime/vulkan/kernels/conv_plan.hpp"
#include "runtime/vulkan/kernels/known_inputs.hpp"
#include "runtime/vulkan/kernels/quant_args.hpp"
#include "runtime/vulkan/kernels/unary_codes.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

constexpr int64_t kMaxTaps = 32768;

struct QLinearConvPush {
  uint32_t n, out_pixels, out_w, out_channels, in_h, in_w, in_channels;
  uint32_t channels_per_group, out_channels_per_group, kernel_h, kernel_w;
  ConvWindow window;
  int32_t x_zero, y_zero, r_zero;
  float y_scale, r_scale, act_a, act_b;
};
static_assert(sizeof(QLinearConvPush) == 96, "must match qlinear_conv.comp's push block");

// Per output channel m: bias, weight zero point, and x_scale * w_scale[m]
// as float bits, three words a channel.
Tensor channel_table(const QLinearConvParams& q, const Tensor* bias, int64_t out_channels) {
  Tensor table = Tensor::zeros(DType::I32, {3 * out_channels});
  int32_t* t = table.data<int32_t>();
  for (int64_t m = 0; m < out_channels; ++m) {
    const float multiplier = q.x_scale * q.w_scale[static_cast<size_t>(m)];
    t[3 * m] = bias ? bias->data<int32_t>()[m] : 0;
    t[3 * m + 1] = q.w_zero[static_cast<size_t>(m)];
    std::memcpy(&t[3 * m + 2], &multiplier, sizeof(float));
  }
  return table;
}

Status plan_qlinear_conv(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_int8_shaders(ctx));
  MOTE_ASSIGN_OR_RETURN(ConvGeometry g, plannable_conv_geometry(ctx, /*transposed=*/false,
                                                                {DType::U8, DType::I8, DType::F32, DType::I32},
                                                                kQcX, kQcW));
  MOTE_RETURN_IF_ERROR(require_known(ctx, {kQcXScale, kQcXZero, kQcWScale, kQcWZero, kQcYScale, kQcYZero, kQcBias,
                                           kQcResidualScale, kQcResidualZero}));
  MOTE_RETURN_IF_ERROR(require_int8_store_activation(ctx));
  // An int32 sum holds 33,025 products of two 8-bit differences (255^2 each).
  if (g.in_channels_per_group() * g.kernel_volume() > kMaxTaps) return ctx.unsupported("more than 32768 taps");
  MOTE_ASSIGN_OR_RETURN(QLinearConvParams q, read_qlinear_conv_params(ctx.inputs, g.out_channels));
  const FusedCode act = fused_code(ctx.op.fused.get());
  constexpr size_t kH = kConvH, kW = kConvW;
  QLinearConvPush push{};
  push.n = static_cast<uint32_t>(ctx.out(0).numel());
  push.out_pixels = static_cast<uint32_t>(g.out_pixels());
  push.out_w = static_cast<uint32_t>(g.out_size[kW]);
  push.out_channels = static_cast<uint32_t>(g.out_channels);
  push.in_h = static_cast<uint32_t>(g.in_size[kH]);
  push.in_w = static_cast<uint32_t>(g.in_size[kW]);
  push.in_channels = static_cast<uint32_t>(g.in_channels);
  push.channels_per_group = static_cast<uint32_t>(g.in_channels_per_group());
  push.out_channels_per_group = static_cast<uint32_t>(g.out_channels_per_group());
  push.kernel_h = static_cast<uint32_t>(g.kernel[kH]);
  push.kernel_w = static_cast<uint32_t>(g.kernel[kW]);
  push.window = conv_window(g);
  push.x_zero = q.x_zero;
  push.y_zero = q.y_zero;
  push.r_zero = q.r_zero;
  push.y_scale = q.y_scale;
  push.r_scale = q.r_scale;
  push.act_a = act.a;
  push.act_b = act.b;
  const Tensor* bias = optional_known(ctx, kQcBias);
  const TensorArg table = ctx.add_constant(channel_table(q, bias, g.out_channels));
  // The residual's binding aliases X when there is none (never read).
  const TensorArg residual = q.residual ? ctx.input(kQcResidual) : ctx.input(kQcX);
  const auto is_signed = [&](size_t i) { return ctx.in(i).dtype() == DType::I8 ? 1 : 0; };
  ctx.dispatch_1d(ShaderId::kQlinearConv, {ctx.input(kQcX), ctx.input(kQcW), table, ctx.output(0), residual}, push,
                  (ctx.out(0).numel() + 3) / 4)
      .constants = {act.code,
                    is_signed(kQcX),
                    is_signed(kQcW),
                    q.y_dtype == DType::I8 ? 1 : 0,
                    q.residual ? 1 : 0,
                    q.residual ? is_signed(kQcResidual) : 0};
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(QLinearConv, mote::vk::plan_qlinear_conv);
