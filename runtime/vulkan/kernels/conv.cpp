// Vulkan kernel of Conv (1-D and 2-D; 1-D runs as 2-D with height 1).
// Convolutions with one input channel per group (depthwise, and any conv of
// a single-channel image) run as a direct stencil on conv_depthwise.comp;
// 3x3 stride-1 ones with constant weights as Winograd (conv_winograd.cpp),
// everything else as an implicit GEMM on conv_gemm.comp, groups along z.
// Weights, bias and the residual (input 3, added before the activation) are
// bound as they are, so they need not be constants.
#include "runtime/vulkan/kernels/conv_plan.hpp"
#include "runtime/vulkan/kernels/conv_winograd.hpp"
#include "runtime/vulkan/kernels/gemm_split.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/kernels/unary_codes.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

constexpr size_t kH = kConvH, kW = kConvW;

// Past this window the unrolled stencil stops paying off and the GEMM
// (K = kernel volume) takes over.
constexpr int64_t kMaxStencilTaps = 64;

struct DepthwisePush {
  uint32_t out_pixels, out_w, out_channels, multiplier, in_h, in_w, in_channels;
  ConvWindow window;
  float act_a, act_b;
  uint32_t groups_w;
};
static_assert(sizeof(DepthwisePush) == 64, "must match conv_depthwise.comp's push block");

// Outputs per invocation along a row (conv_depthwise.comp's OUT_X): 4 where
// the row is undilated with a column stride of 1 or 2, else 1.
// The shader's vec4 row bands and stores (ROW_LEAD, OUT_QUADS) rely on 4.
constexpr int64_t kDepthwiseRowOutputs = 4;
static_assert(kDepthwiseRowOutputs == 4, "conv_depthwise.comp's ROW_LEAD and OUT_QUADS assume 4");

struct ConvGemmPush {
  uint32_t rows, cols, depth, out_pixels, out_w, in_h, in_w, in_image, in_group, out_channels;
  int32_t stride_h, stride_w, pad_h, pad_w;
  float act_a, act_b;
  uint32_t k_chunk;
  uint32_t dil_h, dil_w, span_h, span_w;
};
static_assert(sizeof(ConvGemmPush) == 84, "must match conv_gemm_main.glsl's push block");

// Workgroups of 64 invocations, each one output pixel or a run of
// kDepthwiseRowOutputs in a row; y is the channel and z the image.
Status plan_depthwise(PlanContext& ctx, const ConvGeometry& g, const FusedCode& act) {
  constexpr uint32_t kLocal = 64;
  const bool rows = g.dilation[kW] == 1 && (g.stride[kW] == 1 || g.stride[kW] == 2) && g.out_size[kW] > 1;
  const int64_t out_x = rows ? kDepthwiseRowOutputs : 1;
  const int64_t groups_w = (g.out_size[kW] + out_x - 1) / out_x;
  // Row bands as aligned vec4s where input rows hold a multiple of 4 floats:
  // a band starts at ox0 * stride - pad_w with ox0 a multiple of 4, so
  // -pad_w mod 4 into its first vec4.
  const int32_t row_lead =
      rows && g.in_size[kW] % 4 == 0 ? static_cast<int32_t>(((-g.pad_begin[kW]) % 4 + 4) % 4) : -1;
  const int64_t items = rows ? g.out_size[kH] * groups_w : g.out_pixels();
  int64_t gx = (items + kLocal - 1) / kLocal;
  if (gx > ctx.features.max_group_count[0] || g.out_channels > ctx.features.max_group_count[1] ||
      g.batch > ctx.features.max_group_count[2]) {
    return ctx.unsupported("more workgroups than the device allows");
  }
  DepthwisePush push{};
  push.out_pixels = static_cast<uint32_t>(g.out_pixels());
  push.out_w = static_cast<uint32_t>(g.out_size[kW]);
  push.out_channels = static_cast<uint32_t>(g.out_channels);
  push.multiplier = static_cast<uint32_t>(g.out_channels_per_group());
  push.in_h = static_cast<uint32_t>(g.in_size[kH]);
  push.in_w = static_cast<uint32_t>(g.in_size[kW]);
  push.in_channels = static_cast<uint32_t>(g.in_channels);
  push.window = conv_window(g);
  push.act_a = act.a;
  push.act_b = act.b;
  push.groups_w = static_cast<uint32_t>(groups_w);
  const TensorArg w = ctx.input(1);
  ctx.dispatch(ShaderId::kConvDepthwise, {ctx.input(0), w, ctx.input_or(2, w), ctx.output(0), ctx.input_or(3, w)},
               push,
               {static_cast<uint32_t>(gx), static_cast<uint32_t>(g.out_channels), static_cast<uint32_t>(g.batch)},
               {kLocal, 1, 1})
      .constants = {act.code,
                    ctx.has_input(2) ? 1 : 0,
                    static_cast<int32_t>(g.kernel[kH]),
                    static_cast<int32_t>(g.kernel[kW]),
                    ctx.has_input(3) ? 1 : 0,
                    static_cast<int32_t>(out_x),
                    static_cast<int32_t>(rows ? g.stride[kW] : 1),
                    row_lead,
                    rows && g.out_size[kW] % 4 == 0 ? 1 : 0};
  return {};
}

// Where each reduction index k = (c, ky, kx) of a group reads X, relative to
// its window's corner: the channel's plane offset and the dilated tap.
Tensor tap_table(const ConvGeometry& g) {
  const int64_t taps = g.kernel[kH] * g.kernel[kW];
  const int64_t k = g.in_channels_per_group() * taps;
  // Four words per k (the fourth unused) so the shader reads one uvec4.
  Tensor table = Tensor::zeros(DType::I32, {4 * k});
  int32_t* t = table.data<int32_t>();
  for (int64_t i = 0; i < k; ++i) {
    int64_t c = i / taps, ky = i % taps / g.kernel[kW], kx = i % g.kernel[kW];
    t[4 * i] = static_cast<int32_t>(c * g.in_size[kH] * g.in_size[kW]);
    t[4 * i + 1] = static_cast<int32_t>(ky * g.dilation[kH]);
    t[4 * i + 2] = static_cast<int32_t>(kx * g.dilation[kW]);
  }
  return table;
}

// Whether a pointwise layer runs turned around (conv_gemm_main.glsl's
// TRANSPOSED): one image whose pixels cannot form column quads (7x7 has 49)
// but whose output channels can, with the weights known now to transpose,
// on the register core (the only one with quads). On lavapipe: MobileNetV2's
// 7x7 1x1 layers 41-52 -> 25-30 ms summed, ResNet-50's layer4 ones 129-132
// -> 66-68 ms (docs/vulkan.md).
bool turn_pointwise_around(const PlanContext& ctx, const ConvGeometry& g, bool pointwise) {
  if (!pointwise || g.batch != 1 || g.group != 1 || g.out_pixels() % 4 == 0) return false;
  if (g.out_channels % 4 != 0 || g.out_channels < 128 || !ctx.in(1).raw()) return false;
  // The profile's, an override's or a tuned tile: one that takes quads (the
  // tile keeps the limits' tn at 128 columns or more).
  const GemmTileLimits& limits = gemm_limits(ctx, g.out_pixels(), g.out_channels, g.in_channels, 1);
  return !limits.shared_core && limits.tn % 4 == 0;
}

Status plan_implicit_gemm(PlanContext& ctx, const ConvGeometry& g, const FusedCode& act) {
  ConvGemmPush push{};
  push.rows = static_cast<uint32_t>(g.out_channels_per_group());
  push.cols = static_cast<uint32_t>(g.batch * g.out_pixels());
  push.depth = static_cast<uint32_t>(g.in_channels_per_group() * g.kernel[kH] * g.kernel[kW]);
  push.out_pixels = static_cast<uint32_t>(g.out_pixels());
  push.out_w = static_cast<uint32_t>(g.out_size[kW]);
  push.in_h = static_cast<uint32_t>(g.in_size[kH]);
  push.in_w = static_cast<uint32_t>(g.in_size[kW]);
  push.in_image = static_cast<uint32_t>(g.in_channels * g.in_pixels());
  push.in_group = static_cast<uint32_t>(g.in_channels_per_group() * g.in_pixels());
  push.out_channels = static_cast<uint32_t>(g.out_channels);
  push.stride_h = static_cast<int32_t>(g.stride[kH]);
  push.stride_w = static_cast<int32_t>(g.stride[kW]);
  push.pad_h = static_cast<int32_t>(g.pad_begin[kH]);
  push.pad_w = static_cast<int32_t>(g.pad_begin[kW]);
  push.act_a = act.a;
  push.act_b = act.b;
  push.dil_h = static_cast<uint32_t>(g.dilation[kH]);
  push.dil_w = static_cast<uint32_t>(g.dilation[kW]);
  push.span_h = static_cast<uint32_t>(g.kernel[kH] * g.dilation[kH]);
  push.span_w = static_cast<uint32_t>(g.kernel[kW] * g.dilation[kW]);

  // A 1x1 window over every pixel reads X at the output pixel itself.
  const bool pointwise = g.kernel[kH] == 1 && g.kernel[kW] == 1 && g.stride[kH] == 1 && g.stride[kW] == 1 &&
                         g.pad_begin[kH] == 0 && g.pad_begin[kW] == 0 && g.out_size == g.in_size;
  const bool transposed = turn_pointwise_around(ctx, g, pointwise);
  if (transposed) push.rows = push.out_pixels, push.cols = push.out_channels;

  MOTE_ASSIGN_OR_RETURN(GemmLaunch launch, plan_gemm_launch(ctx, push.rows, push.cols, push.depth, g.group));
  push.k_chunk = launch.split.k_chunk;
  // Only the shared core splits, and turn_pointwise_around keeps it off.
  if (transposed && launch.split_k()) return ctx.unsupported("a turned-around pointwise product cannot be split");
  // Four pixels of one image per vec4 (whole quads per image, every image's
  // planes starting at a multiple of 4 floats), or turned around, four
  // output channels of the transposed weights.
  launch.tile.column_quads =
      launch.tile.takes_column_quads() && (transposed || (pointwise && g.out_pixels() % 4 == 0));
  const TensorArg weights =
      transposed ? ctx.add_constant(transposed_matrices(ctx.in(1), 1, g.out_channels, g.in_channels)) : ctx.input(1);
  // Absent optional inputs are bound to the weights the shader reads, so that
  // the original W is not uploaded beside its transposed copy.
  const TensorArg bias = ctx.input_or(2, weights);
  const TensorArg residual = ctx.input_or(3, weights);
  // Only the shared core reads the tap table, and not for pointwise layers
  // (the register core walks the taps); binding 3 aliases W otherwise.
  TensorArg table = pointwise || !launch.tile.shared_core ? weights : ctx.add_constant(tap_table(g));
  const TensorArg partial = partial_sums(ctx, launch, push.rows, push.cols, ctx.output(0));
  std::vector<int32_t> constants = launch.tile.constants();
  constants.insert(constants.end(), {act.code, ctx.has_input(2) ? 1 : 0, pointwise ? 1 : 0, ctx.has_input(3) ? 1 : 0,
                                     launch.split_k() ? 1 : 0, transposed ? 1 : 0});
  ctx.dispatch(launch.shader(ShaderId::kConvGemm, ShaderId::kConvGemmShuffle, ShaderId::kConvGemmShared),
               {ctx.input(0), weights, bias, table, ctx.output(0), residual, partial}, push, launch.groups,
               launch.tile.local())
      .constants = std::move(constants);
  if (launch.split_k()) {
    // Output channel `row`, column `col` over images of out_pixels each.
    SplitReducePush reduce{};
    reduce.rows = push.rows, reduce.cols = push.cols, reduce.splits = launch.split.parts;
    reduce.cols_per_image = push.out_pixels, reduce.image_stride = push.out_channels * push.out_pixels;
    reduce.y_sr = push.out_pixels, reduce.y_sc = 1, reduce.bias_sr = 1, reduce.bias_sc = 0;
    reduce.alpha = reduce.beta = 1.0f, reduce.act_a = act.a, reduce.act_b = act.b;
    std::optional<TensorArg> bias, residual;
    if (ctx.has_input(2)) bias = ctx.input(2);
    if (ctx.has_input(3)) residual = ctx.input(3);
    dispatch_split_reduce(ctx, partial, reduce, bias, residual, ctx.output(0), act.code);
  }
  return {};
}

Status plan_conv(PlanContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(ConvGeometry g, plannable_conv_geometry(ctx, /*transposed=*/false));
  FusedCode act = fused_code(ctx.op.fused.get());
  if (g.in_channels_per_group() == 1 && g.kernel_volume() <= kMaxStencilTaps) return plan_depthwise(ctx, g, act);
  if (int tile = gpu_winograd_tile(ctx, g)) return plan_winograd(ctx, g, act, tile);
  return plan_implicit_gemm(ctx, g, act);
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(Conv, mote::vk::plan_conv);
