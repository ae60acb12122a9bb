// Vulkan kernel of QLinearConv (1-D and 2-D), a direct convolution with
// int32 sums, one invocation per four output bytes: qlinear_conv_dot.comp
// through the integer dot-product instructions where the device has them
// (one group, constant W: X packed four channels to a word by
// pack_channels4.comp per run, W once here), qlinear_conv.comp otherwise.
// The scales and zero points must be constants (a converted model's are):
// they are folded at plan time into one table per output channel (bias,
// weight zero point, x_scale * w_scale, the sum of the weight codes).
// Quantised tensors are bytes, so the f16 storage mode does not touch them.
// Not on CPU-type devices (lavapipe): DeviceFeatures::int8_shaders says why
// (quant_args.hpp).
#include "runtime/ops/qlinear_conv.hpp"

#include <vector>

#include "runtime/vulkan/kernels/conv_plan.hpp"
#include "runtime/vulkan/kernels/known_inputs.hpp"
#include "runtime/vulkan/kernels/quant_args.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
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

struct PackPush {
  uint32_t words, channels, pixels, channel_words, fill;
};

// W [M, C, KH, KW] four channels to a word ([M, C4, KH, KW], byte k channel
// 4 c4 + k), channels past C at m's zero point: qlinear_conv_dot.comp's
// layout.
Tensor packed_weights(const Tensor& w, const QLinearConvParams& q, const ConvGeometry& g, int64_t channel_words) {
  const int64_t m_count = g.out_channels, c_count = g.in_channels_per_group(), taps = g.kernel_volume();
  Tensor packed = Tensor::zeros(DType::I32, {m_count * channel_words * taps});
  auto* out = static_cast<uint8_t*>(packed.raw());
  const auto* in = static_cast<const uint8_t*>(w.raw());
  for (int64_t m = 0; m < m_count; ++m) {
    const auto fill = static_cast<uint8_t>(q.w_zero[static_cast<size_t>(m)]);
    for (int64_t c = 0; c < channel_words * 4; ++c) {
      for (int64_t t = 0; t < taps; ++t) {
        const int64_t word = (m * channel_words + c / 4) * taps + t;
        out[4 * word + c % 4] = c < c_count ? in[(m * c_count + c) * taps + t] : fill;
      }
    }
  }
  return packed;
}

// Per output channel m: bias, weight zero point, x_scale * w_scale[m] as
// float bits, and the sum of m's weight codes over `padded_channels`
// channels (those past W's at the zero point: the dot path's padding; 0
// without W, which the portable path may read at run time).
Tensor channel_table(const QLinearConvParams& q, const Tensor* bias, const Tensor* w, const ConvGeometry& g,
                     int64_t padded_channels) {
  const int64_t taps = g.in_channels_per_group() * g.kernel_volume();
  std::vector<RequantRow> rows(static_cast<size_t>(g.out_channels));
  for (int64_t m = 0; m < g.out_channels; ++m) {
    const auto c = static_cast<size_t>(m);
    RequantRow& row = rows[c];
    row.bias = bias ? bias->data<int32_t>()[m] : 0;
    row.weight_zero = q.w_zero[c];
    row.multiplier = q.x_scale * q.w_scale[c];
    if (w) {
      row.weight_sum =
          static_cast<int32_t>((padded_channels - g.in_channels_per_group()) * g.kernel_volume()) * q.w_zero[c];
      for (int64_t i = 0; i < taps; ++i) row.weight_sum += int8_element(*w, m * taps + i);
    }
  }
  return requant_row_words(rows);
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
  const Tensor& w = ctx.in(kQcW);
  // The residual's binding aliases X when there is none (never read).
  const TensorArg residual = q.residual ? ctx.input(kQcResidual) : ctx.input(kQcX);
  const auto is_signed = [&](size_t i) { return ctx.in(i).dtype() == DType::I8 ? 1 : 0; };
  const std::vector<int32_t> constants = {act.code,           is_signed(kQcX),
                                          is_signed(kQcW),    q.y_dtype == DType::I8 ? 1 : 0,
                                          q.residual ? 1 : 0, q.residual ? is_signed(kQcResidual) : 0};
  const int64_t channel_words = (g.in_channels + 3) / 4;
  // One group (dot products run along the channels) with W known now.
  if (ctx.features.int8_dot_product && g.group == 1 && w.raw() && channel_words * 4 * g.kernel_volume() <= kMaxTaps) {
    const int64_t pixels = g.in_size[kH] * g.in_size[kW];
    const int64_t words = g.batch * channel_words * pixels;
    if (!fits_u32(words)) return ctx.unsupported("more than 2^31 packed words");
    const PackPush pack{static_cast<uint32_t>(words), static_cast<uint32_t>(g.in_channels),
                        static_cast<uint32_t>(pixels), static_cast<uint32_t>(channel_words),
                        static_cast<uint32_t>(q.x_zero & 0xff)};
    const TensorArg packed_x = ctx.add_scratch(DType::I32, words);
    ctx.dispatch_1d(ShaderId::kPackChannels4, {ctx.input(kQcX), packed_x}, pack, words);
    push.in_channels = push.channels_per_group = static_cast<uint32_t>(channel_words);
    const TensorArg table = ctx.add_constant(channel_table(q, bias, &w, g, channel_words * 4));
    const TensorArg packed_w = ctx.add_constant(packed_weights(w, q, g, channel_words));
    ctx.dispatch_1d(ShaderId::kQlinearConvDot, {packed_x, packed_w, table, ctx.output(0), residual}, push,
                    (ctx.out(0).numel() + 3) / 4)
        .constants = constants;
    return {};
  }
  const TensorArg table = ctx.add_constant(channel_table(q, bias, nullptr, g, g.in_channels_per_group()));
  ctx.dispatch_1d(ShaderId::kQlinearConv, {ctx.input(kQcX), ctx.input(kQcW), table, ctx.output(0), residual}, push,
                  (ctx.out(0).numel() + 3) / 4)
      .constants = constants;
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(QLinearConv, mote::vk::plan_qlinear_conv);
