#include "runtime/vulkan/kernels/conv_winograd.hpp"

#include <algorithm>

#include "runtime/ops/winograd_weights.hpp"
#include "runtime/vulkan/kernels/conv_plan.hpp"
#include "runtime/vulkan/kernels/matmul_dispatch.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"

namespace mote::vk {
namespace {

constexpr size_t kH = kConvH, kW = kConvW;

// Below this many channels (in or out) the point products are too shallow
// or too short for the GEMM tiles, as on the CPU (conv_winograd.cpp).
constexpr int64_t kMinChannels = 16;
// F(4x4) needs this many tiles per image, else F(2x2): ResNet's 14x14 stage
// (16 tiles of 4x4) takes F(4x4), its 7x7 stage (4 tiles) F(2x2).
constexpr int64_t kMinTilesF4 = 16;

struct InputPush {
  uint32_t channels, in_h, in_w, tiles_w, tiles_per_image, tiles;
  int32_t pad_h, pad_w;
};
static_assert(sizeof(InputPush) == 32, "must match winograd_input.comp's push block");

struct OutputPush {
  uint32_t out_channels, out_h, out_w, tiles_w, tiles_per_image, tiles;
  float act_a, act_b;
};
static_assert(sizeof(OutputPush) == 32, "must match winograd_output.comp's push block");

int64_t tiles_along(int64_t size, int tile) { return (size + tile - 1) / tile; }

}  // namespace

int gpu_winograd_tile(const PlanContext& ctx, const ConvGeometry& g) {
  if (!ctx.features.winograd) return 0;
  if (g.spatial_rank != 2 || g.group != 1 || g.kernel[kH] != 3 || g.kernel[kW] != 3) return 0;
  if (g.stride[kH] != 1 || g.stride[kW] != 1 || g.dilation[kH] != 1 || g.dilation[kW] != 1) return 0;
  if (std::min(g.in_channels, g.out_channels) < kMinChannels) return 0;
  if (!ctx.in(1).raw()) return 0;  // weights known only at run time: transformed once is the point
  // With f16 storage the transformed inputs and products would be rounded to
  // f16, and the output transform's coefficients (up to 8 x 8) magnify that:
  // 0.012 to 0.018 off on outputs of 0.03 to 0.5 in the ConvVk tests (64 and
  // 128 channels), outside f16's tolerance. Those sessions keep the GEMM.
  if (ctx.fp16) return 0;
  int tile = tiles_along(g.out_size[kH], 4) * tiles_along(g.out_size[kW], 4) >= kMinTilesF4 ? 4 : 2;
  // Every index of the scratch buffers fits 32 bits.
  const int64_t points = (tile + 2) * (tile + 2);
  const int64_t tiles = g.batch * tiles_along(g.out_size[kH], tile) * tiles_along(g.out_size[kW], tile);
  if (!fits_u32(points * std::max(g.in_channels, g.out_channels) * tiles)) return 0;
  return tile;
}

Status plan_winograd(PlanContext& ctx, const ConvGeometry& g, const FusedCode& act, int tile) {
  const int64_t side = tile + 2, points = side * side;
  const int64_t cin = g.in_channels, cout = g.out_channels;
  const int64_t tiles_w = tiles_along(g.out_size[kW], tile), tiles_h = tiles_along(g.out_size[kH], tile);
  const int64_t per_image = tiles_w * tiles_h, tiles = g.batch * per_image;
  auto u32 = [](int64_t v) { return static_cast<uint32_t>(v); };

  // M[point] = U[point] x V[point]: [cout x cin] x [cin x tiles], batched over the points.
  Product pr;
  pr.m = cout, pr.n = tiles, pr.k = cin;
  // U[point][k][c], transformed once here; stored [point][c][k] when the
  // product runs swapped (few tiles: the output channels then run along the
  // shader's columns, which read U contiguously, as vec4s on the register
  // core: docs/vulkan.md).
  const bool swapped = matmul_swaps(pr);
  Tensor u = Tensor::zeros(DType::F32, {points, cout, cin});
  winograd_transform_weights(tile, ctx.in(1).data<float>(), cout * cin, u.data<float>());
  if (swapped) u = transposed_matrices(u, points, cout, cin);  // U[point][c][k]
  const TensorArg weights = ctx.add_constant(std::move(u));
  const TensorArg v = ctx.add_scratch(DType::F32, points * cin * tiles);
  const TensorArg m = ctx.add_scratch(DType::F32, points * cout * tiles);

  InputPush in{u32(cin),
               u32(g.in_size[kH]),
               u32(g.in_size[kW]),
               u32(tiles_w),
               u32(per_image),
               u32(tiles),
               static_cast<int32_t>(g.pad_begin[kH]),
               static_cast<int32_t>(g.pad_begin[kW])};
  ctx.dispatch_1d(ShaderId::kWinogradInput, {ctx.input(0), v}, in, cin * tiles).constants = {tile};

  pr.a_sm = swapped ? 1 : cin, pr.a_sk = swapped ? cout : 1, pr.b_sk = tiles, pr.b_sn = 1;
  pr.batch = points;
  pr.batch_dims = {1, 1, u32(points)};
  pr.a_batch_stride = {0, 0, u32(cout * cin)};
  pr.b_batch_stride = {0, 0, u32(cin * tiles)};
  pr.a = weights, pr.b = v, pr.y = m;
  pr.apply_fused = false;
  MOTE_RETURN_IF_ERROR(dispatch_matmul(ctx, pr));

  OutputPush out{u32(cout), u32(g.out_size[kH]), u32(g.out_size[kW]), u32(tiles_w), u32(per_image), u32(tiles), act.a,
                 act.b};
  // Absent optional inputs are bound to M and never read.
  ctx.dispatch_1d(ShaderId::kWinogradOutput, {m, ctx.input_or(2, m), ctx.input_or(3, m), ctx.output(0)}, out,
                  cout * tiles)
      .constants = {tile, act.code, ctx.has_input(2) ? 1 : 0, ctx.has_input(3) ? 1 : 0};
  return {};
}

}  // namespace mote::vk
