// Vulkan kernels of the int8 average pools (runtime/ops/qlinear_pool.hpp)
// through qlinear_pool.comp, which also serves MaxPool on 8-bit codes
// (pool.cpp); the window geometry both pool shaders share. The mean is
// requantised in f32 where the CPU kernel uses double: at an exact tie
// (common in 2x2 windows when X's and Y's scales are equal) the f32
// product may land a hair off it and round one code the other way.
#include "runtime/ops/qlinear_pool.hpp"

#include "runtime/core/shape_util.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/vulkan/kernels/pool_window.hpp"
#include "runtime/vulkan/kernels/quant_args.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"

namespace mote::vk {

namespace {

struct QPoolPush {
  PoolPush window;
  float x_scale, y_scale;
  int32_t x_zero, y_zero;
};
static_assert(sizeof(QPoolPush) == 104, "must match qlinear_pool.comp's push block");

std::array<uint32_t, 3> u32x3(const std::vector<int64_t>& v) {
  return {static_cast<uint32_t>(v[0]), static_cast<uint32_t>(v[1]), static_cast<uint32_t>(v[2])};
}

}  // namespace

Result<PoolPush> pool_push(const PlanContext& ctx, const PoolGeometry& g, int64_t outputs) {
  // One loop over the window's taps per output (pool_window.glsl).
  if (g.kernel[0] * g.kernel[1] * g.kernel[2] > int64_t{ctx.features.max_loop_iterations}) {
    return ctx.unsupported("a window of more taps than one invocation may loop over on this device");
  }
  return PoolPush{static_cast<uint32_t>(outputs),
                  u32x3(g.in),
                  u32x3(g.out),
                  u32x3(g.kernel),
                  u32x3(g.stride),
                  u32x3(g.dilation),
                  u32x3(g.pad_begin),
                  u32x3(g.pad_end)};
}

void dispatch_quantized_pool(PlanContext& ctx, const PoolPush& window, bool is_max, bool count_pad,
                             const QUnaryParams& q) {
  const QPoolPush push{window, q.x.scale, q.y.scale, q.x.zero, q.y.zero};
  ctx.dispatch_1d(ShaderId::kQlinearPool, {ctx.input(0), ctx.output(0)}, push, (window.n + 3) / 4).constants = {
      is_max, count_pad, ctx.in(0).dtype() == DType::I8, ctx.out(0).dtype() == DType::I8};
}

namespace {

// Windows up to 2^16 taps: the int32 sum of codes stays exact as a float
// (|sum| < 2^24) for the mean.
constexpr int64_t kMaxQuantizedTaps = int64_t{1} << 16;

Result<QUnaryParams> plannable_qpool(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_int8_shaders(ctx));
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::U8, DType::I8, DType::F32}));
  const Tensor& x = ctx.in(kQUnaryX.data);
  if (!is_8bit(x.dtype())) return ctx.unsupported("X is not 8-bit");
  if (x.numel() == 0 || ctx.out(0).numel() == 0) return ctx.unsupported("empty tensor");
  if (!fits_u32(x.numel())) return ctx.unsupported("more than 2^31 elements");
  QUnaryParams q;
  MOTE_ASSIGN_OR_RETURN(q.x, known_tensor_quant(ctx, kQUnaryX));
  MOTE_ASSIGN_OR_RETURN(q.y, known_tensor_quant(ctx, kQUnaryY));
  return q;
}

Status check_taps(const PlanContext& ctx, const PoolGeometry& g) {
  if (g.kernel[0] * g.kernel[1] * g.kernel[2] > kMaxQuantizedTaps) {
    return ctx.unsupported("a window of more than 65536 taps");
  }
  return {};
}

Status plan_qlinear_average_pool(PlanContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(QUnaryParams q, plannable_qpool(ctx));
  const auto& a = attrs<fb::PoolAttrsT>(ctx.op);
  MOTE_ASSIGN_OR_RETURN(PoolGeometry g, pool_geometry(a, ctx.in(kQUnaryX.data).shape()));
  MOTE_RETURN_IF_ERROR(check_taps(ctx, g.as_3d()));
  MOTE_ASSIGN_OR_RETURN(PoolPush window, pool_push(ctx, g.as_3d(), ctx.out(0).numel()));
  dispatch_quantized_pool(ctx, window, /*is_max=*/false, a.count_include_pad, q);
  return {};
}

// One window over each plane's elements after the channel axis.
Status plan_qlinear_global_average_pool(PlanContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(QUnaryParams q, plannable_qpool(ctx));
  const AxisSplit s = split_at_axis(ctx.in(kQUnaryX.data).shape(), 1);
  PoolGeometry g;
  g.in = g.kernel = {1, 1, s.inner};
  g.out = g.stride = g.dilation = {1, 1, 1};
  g.pad_begin = g.pad_end = {0, 0, 0};
  MOTE_RETURN_IF_ERROR(check_taps(ctx, g));
  MOTE_ASSIGN_OR_RETURN(PoolPush window, pool_push(ctx, g, s.outer * s.axis));
  dispatch_quantized_pool(ctx, window, /*is_max=*/false, false, q);
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(QLinearAveragePool, mote::vk::plan_qlinear_average_pool);
MOTE_VK_KERNEL(QLinearGlobalAveragePool, mote::vk::plan_qlinear_global_average_pool);
