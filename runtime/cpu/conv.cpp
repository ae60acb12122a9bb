// Optimised Conv. The paths below are chosen per call from the geometry
// (and, for tensors in the channel-blocked layout, runtime/core/layout.hpp,
// from it), after a 2-D layer over a unit dimension is turned into the 1-D
// one it is (as_1d_where_possible):
//  - direct, for inputs of at most four channels (a network's first layer):
//    tiles of output channels x output columns computed straight from a
//    padded copy of the input (conv_direct), weights packed at prepare;
//  - Winograd F(4x4, 3x3), or F(2x2, 3x3) on small images, for 3x3 stride-1
//    layers with enough channels and pixels (conv_winograd), with its weights
//    transformed at prepare; dilated ones (without a residual) as Winograd
//    over their dilation phases (conv_dilation_phases): 256 channels 3x3
//    dilation 2 over 33x33, 12.8 -> 6.2 ms at 1 thread (im2col before;
//    onnxruntime 10.9);
//  - depthwise (group == C_in == C_out, 1-D or 2-D, width stride 1 or 2):
//    SIMD over output columns, one channel plane per task, or over a block
//    of channels per task for narrow planes, blocked tensors and, on
//    AVX-512, 5x5 and 7x7 stride-1 layers over whole blocks
//    (depthwise_blocks_from_planar; conv_depthwise);
//  - pointwise (1x1 kernel, stride 1, no padding): the NCHW input already is
//    the [C, pixels] right operand, so each (image, group) is one GEMM; a
//    blocked output is written by pointwise_blocked instead, a blocked input
//    into NCHW by the turned product below;
//  - other layers of one group writing channel blocks (prefers_conv_blocked:
//    stems, strided layers over wide rows): tiles of pixels x output blocks
//    straight from the input, NCHW or blocked (conv_blocked);
//  - general, 2-D: the input split into stride phases (conv_phase_planes),
//    whose runs the GEMM packs as its patches, in bands of output rows;
//  - general, other: im2col into a per-thread column tile of a few hundred
//    KiB, one GEMM per tile, tiles spread over threads;
//  - small images with many channels (ResNet's 14x14 and 7x7 stages), 1x1 or
//    not: the product is turned around, Y^T = col^T W^T, so output channels
//    run along the GEMM's vectors instead of the few pixels, and the
//    [pixels, C_out] result is transposed into NCHW. The GEMM gathers col^T
//    from a zero-padded copy of the input as it packs it (no im2col).
// Weights are packed for the GEMM once at prepare() when W is a constant; bias,
// residual (input 3) and the fused activation ride in the GEMM epilogue
// (fused_epilogue.hpp); depthwise and Winograd layers clamp as they store and
// pass over each finished tile for the rest while it is in cache, and the
// turned product adds a residual in a pass after its transpose.
#include <algorithm>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/core/layout.hpp"
#include "runtime/cpu/conv_blocked.hpp"
#include "runtime/cpu/conv_depthwise.hpp"
#include "runtime/cpu/conv_dilation_phases.hpp"
#include "runtime/cpu/conv_direct.hpp"
#include "runtime/cpu/conv_im2col.hpp"
#include "runtime/cpu/conv_phase_planes.hpp"
#include "runtime/cpu/conv_winograd.hpp"
#include "runtime/cpu/fused_epilogue.hpp"
#include "runtime/cpu/gemm.hpp"
#include "runtime/cpu/plane_conv_shape.hpp"
#include "runtime/cpu/pointwise_blocked.hpp"
#include "runtime/cpu/strided_copy.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/cpu/thread_scratch.hpp"
#include "runtime/ops/conv_geometry.hpp"

namespace mote::cpu {

// The padded input of a depthwise task (and for channel blocks, its
// transposed output), kept per thread between runs like thread_scratch. The
// declaration must run on the thread that uses it: a block-scope thread_local
// registers its destructor only where control passes its declaration, so one
// declared by the caller outside the pool's task leaked every worker's buffer
// (CI's LeakSanitizer caught it).
DepthwiseScratch& depthwise_scratch() {
  thread_local DepthwiseScratch scratch;
  return scratch;
}

namespace {

// Target size of one column tile: it is written by im2col and read right
// after by the GEMM's packing, so it should stay in L2 (>= 512 KiB on the
// x86 and ARM cores we target).
constexpr int64_t kColumnTileBytes = 512 * 1024;
constexpr int64_t kMaxColumnTileBytes = 4 * 1024 * 1024;
// Largest copy of the input's phase planes (conv_phase_planes) per thread,
// as large as the largest im2col tile: bigger inputs (a detector's 640x640
// layers) are split into bands of output rows, each band's planes filled in
// turn. ResNet's strided layers fit whole (1.7 MB at most).
constexpr int64_t kMaxPhasePlaneBytes = kMaxColumnTileBytes;
// Narrower tiles make GEMMs too thin to run at full speed.
constexpr int64_t kMinTilePixels = 64;
// Bounds of channels_along_vectors().
constexpr int64_t kMaxPixelsForChannelsAlongVectors = 64;
constexpr int64_t kMaxPixelsForGatheredPatches = 256;
constexpr int64_t kMinChannelsForChannelsAlongVectors = 64;

struct ConvState : KernelState {
  const void* weights = nullptr;     // the constant W the packs were made from
  std::vector<PackedMatrix> packed;  // per group: W_g as [M_g, C_g * kvol]
  WinogradWeights winograd;          // instead of `packed` where Winograd pays
  std::vector<float> direct;         // instead of both where direct_conv_applies
  // A layer writing channel blocks; `bias` the constant it holds, or null.
  BlockedConvWeights blocked;
  const void* bias = nullptr;

  bool direct_fits(const ConvGeometry& g) const {
    return direct.size() == direct_conv_pack_weights_size(g);
  }

  bool winograd_fits(const ConvGeometry& g) const {
    return !winograd.empty() && winograd.tile == winograd_tile(g) && winograd.points[0].rows() == g.out_channels &&
           winograd.points[0].cols() == g.in_channels;
  }
  bool dilated_winograd_fits(const ConvGeometry& g) const {
    return dilation_phases_apply(g) && winograd_fits(dilation_phase_geometry(g, 0, 0));
  }
  bool packed_fits(const ConvGeometry& g, bool turned) const {
    if (static_cast<int64_t>(packed.size()) != g.group) return false;
    const int64_t m = g.out_channels_per_group(), k = g.in_channels_per_group() * g.kernel_volume();
    const PackedMatrix& p = packed[0];
    if ((p.role() == PackedMatrix::Role::kB) != turned) return false;
    return turned ? p.rows() == k && p.cols() == m : p.rows() == m && p.cols() == k;
  }
};

bool use_depthwise(const ConvGeometry& g) {
  return g.group == g.in_channels && g.out_channels == g.in_channels && g.spatial_rank <= 2 &&
         plane_conv_supports_stride(g.stride[2]);
}

bool is_pointwise(const ConvGeometry& g) {
  for (int i = 0; i < ConvGeometry::kMaxSpatial; ++i) {
    if (g.kernel[i] != 1 || g.stride[i] != 1 || g.pad_begin[i] != 0 || g.pad_end[i] != 0) return false;
  }
  return true;
}

// A 2-D layer over a unit dimension that its kernel spans without padding
// (an [N, C, L, 1] input under a k x 1 kernel, or [N, C, 1, L] under 1 x k)
// is a 1-D convolution along the other, with the same memory layout. As a
// 2-D one, a k x 1 kernel over a column made the patch gathering copy one
// float per output row: 64 -> 64 channels, 5 x 1, 16384 x 1, 14.6 ms
// against 7.3 ms for the same layer as 1 x 5 over a row (1 thread, AVX-512).
// A depthwise layer stays 2-D where its stride along the length is one its
// row kernels do not take.
ConvGeometry as_1d_where_possible(const ConvGeometry& g) {
  if (g.spatial_rank != 2) return g;
  for (size_t unit : {size_t{1}, size_t{2}}) {
    const size_t other = 3 - unit;
    if (g.in_size[unit] != 1 || g.kernel[unit] != 1 || g.pad_begin[unit] != 0 || g.pad_end[unit] != 0) continue;
    ConvGeometry line = g;
    line.spatial_rank = 1;
    line.in_size = {1, 1, g.in_size[other]};
    line.out_size = {1, 1, g.out_size[other]};
    line.kernel = {1, 1, g.kernel[other]};
    line.stride = {1, 1, g.stride[other]};
    line.dilation = {1, 1, g.dilation[other]};
    line.pad_begin = {0, 0, g.pad_begin[other]};
    line.pad_end = {0, 0, g.pad_end[other]};
    return use_depthwise(g) && !use_depthwise(line) ? g : line;
  }
  return g;
}

Result<ConvGeometry> resolve_geometry(const KernelContext& ctx) {
  auto g = resolve_conv(attrs<fb::ConvAttrsT>(ctx.op), ctx.in(0).shape(), ctx.in(1).shape());
  if (!g.ok()) return g;
  return as_1d_where_possible(*g);
}

// Where the pixels are too few to fill the GEMM's vector columns (49 pixels
// take 64 lanes, and the last partial panel runs a slower kernel) and the
// output channels are many. Measured at 1 thread (AVX-512): ResNet-18's 7x7
// 3x3 layers 2.2 -> 2.06 ms, whole ResNet-50 58.8 -> 57.5 ms; at 196 pixels
// (MobileNetV2's 14x14 1x1 layers, 0.057 -> 0.085 ms) the transpose and the
// packing of the turned operand cost more than the lanes saved, hence the cap.
// Larger kernels and strides take their patches straight from a padded copy
// of the input (IndexedMatrix, no im2col buffer), which pays up to 14x14:
// ResNet-18's 14x14 3x3 layers 1.02-1.05 -> 0.90-0.98 ms at 2 threads; at
// 28x28 its strided layers got slower (1x1 stride 2: 0.085 -> 0.158 ms).
bool channels_along_vectors(const ConvGeometry& g) {
  const int64_t max_pixels = is_pointwise(g) ? kMaxPixelsForChannelsAlongVectors : kMaxPixelsForGatheredPatches;
  return g.out_pixels() <= max_pixels && g.out_channels_per_group() >= kMinChannelsForChannelsAlongVectors;
}

// A layer of one group whose output is channel-blocked: the
// pointwise_blocked kernel (1x1) or conv_blocked (the rest), from NCHW or
// blocked inputs alike (conv_layouts says which layers).
bool writes_blocks_directly(const KernelContext& ctx, const ConvGeometry& g) {
  return ctx.output_blocked(0) && g.group == 1 && (is_pointwise(g) || conv_blocked_applies(g));
}

// Whether the product is turned around: channels_along_vectors, or a 1x1
// layer reading channel blocks into NCHW (its GEMM reads the blocks as
// [pixels, channels] rows). Layers writing blocks take pointwise_blocked.
bool turned_product(const KernelContext& ctx, const ConvGeometry& g) {
  return ctx.input_blocked(0) || channels_along_vectors(g);
}

// W_g as the GEMM's left operand [M_g, C_g * kvol], or, where the product is
// turned around, as its right operand W_g^T.
std::vector<PackedMatrix> pack_weights(const ConvGeometry& g, const float* w, bool turned) {
  const int64_t mg = g.out_channels_per_group();
  const int64_t kdim = g.in_channels_per_group() * g.kernel_volume();
  std::vector<PackedMatrix> packed;
  for (int64_t grp = 0; grp < g.group; ++grp) {
    const float* wg = w + grp * mg * kdim;
    packed.push_back(turned ? pack_b(true, kdim, mg, wg, kdim) : pack_a(false, mg, kdim, wg, kdim));
  }
  return packed;
}

Status conv_prepare(KernelContext& ctx, std::unique_ptr<KernelState>& state) {
  MOTE_RETURN_IF_ERROR(fused::check_f32_inputs_and_activation(ctx));
  if (!ctx.in(1).raw()) return {};  // W is computed at run time: pack per run
  auto g = resolve_geometry(ctx);
  if (!g.ok()) return ctx.fail(g.status().message());
  if (use_depthwise(*g)) return {};  // reads W as it is
  auto s = std::make_unique<ConvState>();
  s->weights = ctx.in(1).raw();
  if (writes_blocks_directly(ctx, *g)) {
    // A bias computed at run time is padded per run (run_writing_blocks).
    const bool constant_bias = ctx.has_input(2) && ctx.in(2).raw();
    s->bias = constant_bias ? ctx.in(2).raw() : nullptr;
    s->blocked = pack_blocked_conv_weights(ctx.in(1).data<float>(), constant_bias ? ctx.in(2).data<float>() : nullptr,
                                           g->out_channels, g->in_channels, g->kernel_volume(), ctx.channel_block);
  } else if (direct_conv_applies(*g)) {
    s->direct = direct_conv_pack_weights(*g, ctx.in(1).data<float>());
  } else if (winograd_tile(*g) != 0) {
    s->winograd = winograd_pack_weights(*g, ctx.in(1).data<float>());
  } else if (!ctx.has_input(3) && dilation_phases_apply(*g)) {
    s->winograd = dilation_phases_pack_weights(*g, ctx.in(1).data<float>());
  } else {
    s->packed = pack_weights(*g, ctx.in(1).data<float>(), turned_product(ctx, *g));
  }
  state = std::move(s);
  return {};
}

// Whether a depthwise layer computes channel blocks from an NCHW input (and
// may write them): narrow planes (prefers_channel_blocks), and with 16-float
// vectors 5x5 and 7x7 stride-1 layers over whole blocks of channels, whose
// row path loads each of the 25 or 49 taps unaligned, a 64-byte vector
// across two cache lines; with channels along the vectors each load is one
// pixel's block. Alone, from and to NCHW, 1 thread (AVX-512): 5x5, 128
// channels 56x56 0.405 -> 0.304 ms, 32 channels 112x112 0.351 -> 0.304, 96
// channels 28x28 0.077 -> 0.055; 7x7 (ConvNeXt's), 96 channels 56x56 0.554
// -> 0.350 (onnxruntime 0.343), 128 channels 28x28 0.188 -> 0.119, 96
// channels 112x112 2.15 -> 1.59. Stride 2 measured slower as blocks.
bool depthwise_blocks_from_planar(const ConvGeometry& g, const PlaneConvShape& s) {
  if (prefers_channel_blocks(s)) return true;
  const int64_t lanes = depthwise_block_channels();
  const bool five_or_seven = (s.kernel_h == 5 || s.kernel_h == 7) && s.kernel_w == s.kernel_h;
  return lanes >= 16 && five_or_seven && s.stride_h == 1 && s.stride_w == 1 && s.dilation_h == 1 &&
         s.dilation_w == 1 && g.in_channels % lanes == 0;
}

// Whether a layer other than a 1x1 stride-1 one writes channel blocks
// (conv_blocked) when its readers take them: where Winograd does not apply,
// with output rows of at least kMinBlockedConvWidth and the last block
// mostly channels. Measured in whole networks at 1 thread (AVX-512, per op,
// conv_blocked against the layer's NCHW path): stems of 3 channels, 3x3
// stride 2 to 32 channels at 112x112 (MobileNetV2) 0.37 -> 0.31 ms, and
// the depthwise layer after it, reading the blocks, 0.27 -> 0.16 ms;
// ResNet-50's strided layers at 28x28, 3x3 2.42-2.66 -> 2.32-2.37 and 1x1
// 1.88-2.04 -> 1.79-1.82. At 7x7 they lost (3x3 512 channels 3.55 -> 4.33, 1x1 1024 ->
// 2048 3.23 -> 4.31), rows of 7 leaving tiles of 4 and 1 pixels; against
// Winograd, a 3x3 stride-1 layer of 64 channels at 56x56 took 2.08 ms
// against 1.36. ShuffleNetV2's 24-channel stem, half a block of padding,
// lost (0.229 -> 0.288 ms).
constexpr int64_t kMinBlockedConvWidth = 16;

bool prefers_conv_blocked(const ConvGeometry& g) {
  if (!conv_blocked_applies(g) || winograd_tile(g) != 0 || dilation_phases_apply(g)) return false;
  const int64_t lanes = channel_block();
  if (lanes <= 1) return false;
  const int64_t padding = (lanes - g.out_channels % lanes) % lanes;
  return g.out_size[2] >= kMinBlockedConvWidth && padding * 8 <= g.out_channels;
}

// Depthwise layers without a residual, 1x1 layers of one group and the
// layers prefers_conv_blocked picks, 2-D and float, take and give channel
// blocks; the last read blocks only to write them. A 1x1 layer writing blocks runs
// pointwise_blocked from either input layout; its residual comes in its
// output's layout. Writing NCHW from blocks takes the turned GEMM and a
// transpose, which lost to the plain product from 196 pixels on
// (channels_along_vectors; ShuffleNetV2's 14x14 1x1 layers before a Concat
// 0.027 -> 0.037 ms), so there a blocked input needs a blocked output.
BlockedSupport conv_layouts(const KernelContext& ctx) {
  if (ctx.in(0).dtype() != DType::F32 || ctx.in(0).shape().size() != 4 || !ctx.has_input(1)) return {};
  auto g = resolve_geometry(ctx);
  if (!g.ok()) return {};
  if (use_depthwise(*g)) {
    if (ctx.has_input(3)) return {};
    // From an NCHW input, blocks cost a transpose of every plane, which only
    // narrow planes repay (prefers_channel_blocks; MobileNetV2's first
    // depthwise layer, 32 channels 112x112, 0.120 -> 0.185 ms).
    const bool from_planar = depthwise_blocks_from_planar(*g, plane_conv_shape(*g, 0.0f, 0.0f));
    return {1, true, 0, 0, from_planar ? uint64_t{0} : uint64_t{1}};
  }
  if (g->group != 1) return {};
  const uint64_t residual = ctx.has_input(3) ? uint64_t{1} << 3 : 0;
  if (is_pointwise(*g)) {
    if (direct_conv_applies(*g)) return {};
    const uint64_t input_needs_blocked_output = channels_along_vectors(*g) ? 0 : 1;
    return {1 | residual, true, residual, input_needs_blocked_output};
  }
  if (!prefers_conv_blocked(*g)) return {};
  return {1 | residual, true, residual, 1};
}

// Depthwise. Wide planes: one task per (image, channel) plane, SIMD along
// the rows. Narrow ones (prefers_channel_blocks), and every channel-blocked
// input or output: one task per block of channels, SIMD across them.
void run_depthwise(KernelContext& ctx, const ConvGeometry& g) {
  const fb::FusedActivationT* act = ctx.op.fused.get();
  const float* residual = ctx.has_input(3) ? ctx.in(3).data<float>() : nullptr;
  // With a residual the activation waits for it: a pass per finished plane.
  const GemmEpilogue clamp = residual ? GemmEpilogue{} : fused::clamp_epilogue(act);
  auto finish = [&](float* out, int64_t first_plane, int64_t count) {
    if (residual) {
      fused::add_residual_and_activate(act, out, residual + first_plane * g.out_pixels(), count * g.out_pixels());
    } else if (fused::needs_pass(act)) {
      apply_fused_activation(act, out, count * g.out_pixels());
    }
  };
  const PlaneConvShape s = plane_conv_shape(g, clamp.clamp_min, clamp.clamp_max);
  const float* x = ctx.in(0).data<float>();
  const float* w = ctx.in(1).data<float>();
  const float* bias = ctx.has_input(2) ? ctx.in(2).data<float>() : nullptr;
  float* y = ctx.out(0).data<float>();
  const int64_t in_plane = g.in_pixels(), out_plane = g.out_pixels(), kvol = g.kernel_volume();
  const int64_t channels = g.in_channels;
  const bool x_blocked = ctx.input_blocked(0), y_blocked = ctx.output_blocked(0);
  if (x_blocked || y_blocked || depthwise_blocks_from_planar(g, s)) {
    // The plan's block where tensors are blocked (ExecutionPlan::run checked
    // that it still is the kernel's), else the kernel's. Its tiles apply the
    // activations they can (tile_activation.hpp) unless a residual comes first.
    PlaneConvShape block_shape = s;
    if (!residual) block_shape.activation = tile_activation(act);
    const bool activated = block_shape.activation != TileActivation::kNone;
    const int64_t width = x_blocked || y_blocked ? ctx.channel_block : depthwise_block_channels();
    const int64_t blocks = (channels + width - 1) / width;
    ctx.pool->parallel_for(g.batch * blocks, 1, [&](int64_t begin, int64_t end) {
      DepthwiseScratch& scratch = depthwise_scratch();
      for (int64_t task = begin; task < end; ++task) {
        const int64_t n = task / blocks, c0 = task % blocks * width, count = std::min(width, channels - c0);
        const int64_t plane = n * channels + c0;
        // Block `task` of a blocked tensor starts task * width planes in.
        const float* in = x + (x_blocked ? task * width * in_plane : plane * in_plane);
        float* out = y + (y_blocked ? task * width * out_plane : plane * out_plane);
        depthwise_channel_block(block_shape, in, x_blocked, in_plane, count, w + c0 * kvol,
                                bias ? bias + c0 : nullptr, out, y_blocked, out_plane, scratch);
        if (activated) continue;
        if (!y_blocked) {
          finish(out, plane, count);
        } else if (fused::needs_pass(act)) {
          apply_fused_activation(act, out, width * out_plane);  // residuals stay planar (conv_layouts)
        }
      }
    });
    return;
  }
  ctx.pool->parallel_for(g.batch * channels, 1, [&](int64_t begin, int64_t end) {
    DepthwiseScratch& scratch = depthwise_scratch();
    for (int64_t plane = begin; plane < end; ++plane) {
      const int64_t c = plane % channels;
      float* out = y + plane * out_plane;
      depthwise_plane(s, x + plane * in_plane, w + c * kvol, bias ? bias[c] : 0.0f, out, scratch);
      finish(out, plane, 1);
    }
  });
}

// Pixels per column tile: what fits kColumnTileBytes, narrowed further when
// that leaves too few tiles to keep every thread busy. Each tile's GEMM reads
// all of the group's weights, so where they outweigh a tile (deep layers on
// small images: ResNet-18's 14x14 layers have 2.4 MB of weights) the tiles
// grow to as much as the weights, up to kMaxColumnTileBytes, and are not split
// for balance: the GEMM of a lone tile spreads over the threads instead.
int64_t tile_pixels(const ConvGeometry& g, int64_t threads) {
  const int64_t pixels = g.out_pixels();
  const int64_t rows = g.in_channels_per_group() * g.kernel_volume();
  const int64_t weight_bytes = g.out_channels_per_group() * rows * int64_t{sizeof(float)};
  if (weight_bytes > kColumnTileBytes) {
    const int64_t bytes = std::min(weight_bytes, kMaxColumnTileBytes);
    return std::min(pixels, std::max(kMinTilePixels, bytes / (rows * int64_t{sizeof(float)}) / 16 * 16));
  }
  int64_t tile = std::max(kMinTilePixels, kColumnTileBytes / (rows * int64_t{sizeof(float)}) / 16 * 16);
  const int64_t planes = g.batch * g.group;
  const int64_t wanted_tiles = (2 * threads + planes - 1) / planes;
  const int64_t balanced = ((pixels + wanted_tiles - 1) / wanted_tiles + 15) / 16 * 16;
  tile = std::min(tile, std::max(kMinTilePixels, balanced));
  return std::min(tile, pixels);
}

// A 1x1 layer of one group reading channel blocks and writing NCHW: per
// image one turned product, [pixels, C_in] x W^T, read from the blocks as
// it is packed, stored as [pixels, C_out] rows and transposed into NCHW; a
// residual (NCHW, like the output) is added in a pass after the transpose.
void run_blocked_pointwise(KernelContext& ctx, const ConvGeometry& g, const PackedMatrix& packed) {
  const fb::FusedActivationT* act = ctx.op.fused.get();
  const int64_t lanes = ctx.channel_block, pixels = g.out_pixels(), mg = g.out_channels;
  const float* x = ctx.in(0).data<float>();
  const float* bias = ctx.has_input(2) ? ctx.in(2).data<float>() : nullptr;
  const float* residual = ctx.has_input(3) ? ctx.in(3).data<float>() : nullptr;
  float* y = ctx.out(0).data<float>();
  const int64_t x_image = (g.in_channels + lanes - 1) / lanes * lanes * pixels;
  float* turned = thread_scratch(static_cast<size_t>(pixels * mg));
  const StridedCopy transpose{{mg, pixels}, {1, mg}, {pixels, 1}};
  for (int64_t n = 0; n < g.batch; ++n) {
    GemmEpilogue epilogue = residual ? GemmEpilogue{} : fused::gemm_epilogue(act);
    epilogue.col_bias = bias;
    sgemm(ChannelBlocks<const float>{x + n * x_image, lanes, lanes * pixels}, pixels, packed, turned, mg, epilogue,
          ctx.pool);
    float* yn = y + n * mg * pixels;
    copy_strided(turned, yn, sizeof(float), transpose, *ctx.pool);
    if (residual) {
      ctx.pool->parallel_for(mg, 1, [&](int64_t m0, int64_t m1) {
        fused::add_residual_and_activate(act, yn + m0 * pixels, residual + (n * mg + m0) * pixels,
                                         (m1 - m0) * pixels);
      });
    }
  }
}

// The turned-around product (channels_along_vectors): per (image, group),
// Y_g^T [pixels, M_g] = col^T W_g^T into scratch, bias and the fused
// activation in the GEMM's epilogue, then transposed into the output; with a
// residual, the activation waits for one pass over the group's transposed
// output that adds it.
void run_channels_along_vectors(KernelContext& ctx, const ConvGeometry& g, const std::vector<PackedMatrix>& packed) {
  if (ctx.input_blocked(0)) {
    run_blocked_pointwise(ctx, g, packed[0]);
    return;
  }
  const fb::FusedActivationT* act = ctx.op.fused.get();
  const bool pointwise = is_pointwise(g);
  const float* x = ctx.in(0).data<float>();
  const float* bias = ctx.has_input(2) ? ctx.in(2).data<float>() : nullptr;
  const float* residual = ctx.has_input(3) ? ctx.in(3).data<float>() : nullptr;
  float* y = ctx.out(0).data<float>();
  const int64_t cg = g.in_channels_per_group(), mg = g.out_channels_per_group();
  const int64_t in_plane = g.in_pixels(), pixels = g.out_pixels(), rows = cg * g.kernel_volume();
  ThreadPool& pool = *ctx.pool;
  // Patches are gathered from a padded copy of the input as the GEMM packs
  // them: with 7x7 images, writing im2col columns first (runs of 7 floats)
  // cost half as much again as the product (ResNet-18's 7x7 3x3 layers).
  const PaddedPatches padded_size = padded_patches(g);
  const int64_t padded_floats = pointwise ? 0 : cg * padded_size.plane();
  float* turned = thread_scratch(static_cast<size_t>(pixels * mg + padded_floats));
  float* padded = turned + pixels * mg;
  thread_local std::vector<int64_t> offsets;
  offsets.resize(static_cast<size_t>(pixels + rows));
  if (!pointwise) patch_offsets(g, padded_size, cg, offsets.data(), offsets.data() + pixels);
  const IndexedMatrix patches{padded, offsets.data(), offsets.data() + pixels};
  const StridedCopy transpose{{mg, pixels}, {1, mg}, {pixels, 1}};
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.group; ++grp) {
      const float* xg = x + (n * g.in_channels + grp * cg) * in_plane;
      float* yg = y + (n * g.out_channels + grp * mg) * pixels;
      // The activation commutes with the transpose: the GEMM runs it, unless
      // it must wait for a residual (in NCHW, added after the transpose).
      GemmEpilogue epilogue = residual ? GemmEpilogue{} : fused::gemm_epilogue(act);
      epilogue.col_bias = bias ? bias + grp * mg : nullptr;
      if (pointwise) {
        sgemm(true, pixels, 1.0f, xg, pixels, packed[static_cast<size_t>(grp)], 0.0f, turned, mg, epilogue, &pool);
      } else {
        pool.parallel_for(cg, 8, [&](int64_t c0, int64_t c1) {
          pad_input(g, padded_size, xg + c0 * in_plane, c1 - c0, padded + c0 * padded_size.plane());
        });
        sgemm(patches, pixels, 1.0f, packed[static_cast<size_t>(grp)], 0.0f, turned, mg, epilogue, &pool);
      }
      copy_strided(turned, yg, sizeof(float), transpose, pool);
      if (residual) {
        const float* rg = residual + (n * g.out_channels + grp * mg) * pixels;
        pool.parallel_for(mg, 1, [&](int64_t m0, int64_t m1) {
          fused::add_residual_and_activate(act, yg + m0 * pixels, rg + m0 * pixels, (m1 - m0) * pixels);
        });
      }
    }
  }
}

// The general 2-D path (phase_planes_apply), one item per (image, group),
// items spread over the threads where there are enough of them, else each
// one's work: the input's phase planes (conv_phase_planes.hpp), then per
// band of output rows one GEMM over the band's grid of pixels, which reads
// its patches from the planes as it packs them, into a scratch band (in L2)
// copied into the output without the grid's extra columns, with the
// residual and activation if there is a residual. Where the grid has no
// extra columns (kernels no wider than their stride) the GEMM writes the
// output itself. Planes larger than kMaxPhasePlaneBytes are filled in bands
// of output rows (with the weights read once per band, so only where they
// must be). Against
// im2col tiles, 1 thread, p50 of 500 runs: ResNet-50's 3x3 stride-2 layer of
// 128 channels on 56x56 1.36 -> 1.10 ms (2 threads 0.70 -> 0.57), ResNet-18's
// 64 -> 128 one 0.64 -> 0.57 ms, ResNet-50's 1x1 stride-2 256 -> 512 one
// 0.91 -> 0.89 ms. Bands of rows as items of their own, each filling its
// own rows of the planes, measured slower (weights read once per band).
void run_phase_planes(KernelContext& ctx, const ConvGeometry& g, const std::vector<PackedMatrix>& packed) {
  const fb::FusedActivationT* act = ctx.op.fused.get();
  const float* x = ctx.in(0).data<float>();
  const float* bias = ctx.has_input(2) ? ctx.in(2).data<float>() : nullptr;
  const float* residual = ctx.has_input(3) ? ctx.in(3).data<float>() : nullptr;
  float* y = ctx.out(0).data<float>();
  const int64_t cg = g.in_channels_per_group(), mg = g.out_channels_per_group();
  const int64_t out_h = g.out_size[1], out_w = g.out_size[2], pixels = g.out_pixels();
  const int64_t threads = ctx.pool->size(), items = g.batch * g.group;
  const PhasePlanes one_row = phase_planes(g, 1);
  const int64_t shift = one_row.rows - 1;
  const int64_t row_floats = cg * one_row.phases_h * one_row.phases_w * one_row.cols;
  const int64_t plane_rows =
      std::clamp<int64_t>(kMaxPhasePlaneBytes / int64_t{sizeof(float)} / row_floats - shift, 1, out_h);
  const PhasePlanes layout = phase_planes(g, plane_rows);
  const bool compact = layout.cols != out_w;  // the grid has extra columns to drop
  const int64_t band_rows =
      compact ? std::clamp<int64_t>(kColumnTileBytes / (mg * layout.cols * int64_t{sizeof(float)}), 1, plane_rows)
              : plane_rows;
  std::vector<int64_t> offsets(static_cast<size_t>(cg * g.kernel_volume()));
  phase_row_offsets(g, layout, cg, offsets.data());

  auto run_item = [&](int64_t item, ThreadPool* pool) {
    const int64_t grp = item % g.group, n = item / g.group;
    const int64_t first_plane = n * g.out_channels + grp * mg;
    float* yg = y + first_plane * pixels;
    const float* rg = residual ? residual + first_plane * pixels : nullptr;
    const int64_t plane_floats = layout.floats(cg);
    float* planes = thread_scratch(static_cast<size_t>(plane_floats + (compact ? mg * band_rows * layout.cols : 0)));
    float* band = planes + plane_floats;
    const float* xg = x + (n * g.in_channels + grp * cg) * g.in_pixels();
    GemmEpilogue epilogue = (residual && compact) ? GemmEpilogue{} : fused::gemm_epilogue(act);
    epilogue.row_bias = bias ? bias + grp * mg : nullptr;
    for (int64_t first = 0; first < out_h; first += plane_rows) {
      if (pool) {
        pool->parallel_for(cg, 8, [&](int64_t c0, int64_t c1) {
          fill_phase_planes(g, layout, first, xg + c0 * g.in_pixels(), c1 - c0,
                            planes + c0 * layout.phases_h * layout.phases_w * layout.plane());
        });
      } else {
        fill_phase_planes(g, layout, first, xg, cg, planes);
      }
      zero_phase_slack(layout, cg, planes);
      const int64_t last = std::min(out_h, first + plane_rows);
      if (!compact) {
        epilogue.residual = rg ? rg + first * out_w : nullptr;
        epilogue.ld_residual = pixels;
        sgemm(packed[static_cast<size_t>(grp)], RowOffsetMatrix{planes, offsets.data()}, (last - first) * out_w,
              yg + first * out_w, pixels, epilogue, pool);
        continue;
      }
      for (int64_t oh0 = first; oh0 < last; oh0 += band_rows) {
        const int64_t rows = std::min(band_rows, last - oh0), grid = rows * layout.cols;
        sgemm(packed[static_cast<size_t>(grp)], RowOffsetMatrix{planes + (oh0 - first) * layout.cols, offsets.data()},
              grid, band, grid, epilogue, pool);
        const auto copy_out = [&](int64_t m0, int64_t m1) {
          for (int64_t m = m0; m < m1; ++m) {
            float* out = yg + m * pixels + oh0 * out_w;
            for (int64_t r = 0; r < rows; ++r) {
              const float* src = band + m * grid + r * layout.cols;
              std::copy(src, src + out_w, out + r * out_w);
            }
            if (rg) fused::add_residual_and_activate(act, out, rg + m * pixels + oh0 * out_w, rows * out_w);
          }
        };
        pool ? pool->parallel_for(mg, 4, copy_out) : copy_out(0, mg);
      }
    }
  };

  if (items >= threads) {
    ctx.pool->run(items, [&](int64_t item) { run_item(item, nullptr); });
  } else {
    for (int64_t item = 0; item < items; ++item) run_item(item, ctx.pool);
  }
}

// Pointwise and general paths: one GEMM per (image, group, pixel tile).
void run_gemm_paths(KernelContext& ctx, const ConvGeometry& g, const std::vector<PackedMatrix>& packed) {
  if (packed[0].role() == PackedMatrix::Role::kB) {
    run_channels_along_vectors(ctx, g, packed);
    return;
  }
  if (!is_pointwise(g) && phase_planes_apply(g)) {
    run_phase_planes(ctx, g, packed);
    return;
  }
  const fb::FusedActivationT* act = ctx.op.fused.get();
  const bool pointwise = is_pointwise(g);
  const float* x = ctx.in(0).data<float>();
  const float* bias = ctx.has_input(2) ? ctx.in(2).data<float>() : nullptr;
  const float* residual = ctx.has_input(3) ? ctx.in(3).data<float>() : nullptr;
  float* y = ctx.out(0).data<float>();
  const int64_t cg = g.in_channels_per_group(), mg = g.out_channels_per_group();
  const int64_t in_plane = g.in_pixels(), pixels = g.out_pixels();
  const int64_t rows = cg * g.kernel_volume();
  const int64_t threads = ctx.pool->size();
  const int64_t tile = pointwise ? pixels : tile_pixels(g, threads);
  const int64_t tiles = (pixels + tile - 1) / tile;
  const int64_t items = g.batch * g.group * tiles;

  // Computes one tile; `pool` is null when the tiles themselves run in
  // parallel, else the GEMM and the column fill use it.
  auto run_item = [&](int64_t item, ThreadPool* pool) {
    const int64_t t = item % tiles;
    const int64_t grp = item / tiles % g.group;
    const int64_t n = item / tiles / g.group;
    const float* xg = x + (n * g.in_channels + grp * cg) * in_plane;
    float* yg = y + (n * g.out_channels + grp * mg) * pixels;
    const int64_t p0 = t * tile, p1 = std::min(pixels, p0 + tile), width = p1 - p0;
    GemmEpilogue epilogue = fused::gemm_epilogue(act);
    epilogue.row_bias = bias ? bias + grp * mg : nullptr;
    if (residual) {
      epilogue.residual = residual + (n * g.out_channels + grp * mg) * pixels + p0;
      epilogue.ld_residual = pixels;
    }
    if (pointwise) {
      sgemm(packed[static_cast<size_t>(grp)], false, width, 1.0f, xg + p0, pixels, 0.0f, yg + p0, pixels, epilogue,
            pool);
    } else {
      float* col = thread_scratch(static_cast<size_t>(rows * width));
      if (pool) {
        pool->parallel_for(rows, 8, [&](int64_t r0, int64_t r1) { im2col(g, xg, p0, p1, r0, r1, col, width); });
      } else {
        im2col(g, xg, p0, p1, 0, rows, col, width);
      }
      sgemm(packed[static_cast<size_t>(grp)], false, width, 1.0f, col, width, 0.0f, yg + p0, pixels, epilogue, pool);
    }
  };

  if (items >= threads) {
    ctx.pool->run(items, [&](int64_t item) { run_item(item, nullptr); });
  } else {
    for (int64_t item = 0; item < items; ++item) run_item(item, ctx.pool);
  }
}

// A layer writing channel blocks (writes_blocks_directly), with the weights
// packed at prepare when they are constants; a bias that is not the one
// packed with them is padded to whole blocks here.
void run_writing_blocks(KernelContext& ctx, const ConvGeometry& g) {
  const auto* state = static_cast<const ConvState*>(ctx.state);
  const float* bias = ctx.has_input(2) ? ctx.in(2).data<float>() : nullptr;
  const int64_t volume = g.kernel_volume();
  const bool prepared = state && state->weights == ctx.in(1).raw() &&
                        state->blocked.fits(g.in_channels, g.out_channels, volume, ctx.channel_block);
  BlockedConvWeights packed_now;
  if (!prepared) {
    packed_now = pack_blocked_conv_weights(ctx.in(1).data<float>(), bias, g.out_channels, g.in_channels, volume,
                                           ctx.channel_block);
  }
  const BlockedConvWeights& w = prepared ? state->blocked : packed_now;
  const float* padded_bias = w.bias.data();
  if (prepared && state->bias != static_cast<const void*>(bias)) {
    thread_local std::vector<float> bias_now;
    bias_now.assign(w.bias.size(), 0.0f);
    if (bias) std::copy(bias, bias + g.out_channels, bias_now.begin());
    padded_bias = bias_now.data();
  }
  const float* residual = ctx.has_input(3) ? ctx.in(3).data<float>() : nullptr;
  const fb::FusedActivationT* act = ctx.op.fused.get();
  const TileActivation in_tile = tile_activation(act);
  const GemmEpilogue epilogue =
      in_tile == TileActivation::kNone ? fused::gemm_epilogue(act) : fused::clamp_epilogue(act);
  const float* x = ctx.in(0).data<float>();
  float* y = ctx.out(0).data<float>();
  if (is_pointwise(g)) {
    pointwise_blocked(w, padded_bias, g.batch, g.out_pixels(), x, ctx.input_blocked(0), residual, epilogue, in_tile,
                      y, *ctx.pool);
  } else {
    conv_blocked(g, w, padded_bias, x, ctx.input_blocked(0), residual, epilogue, in_tile, y, *ctx.pool);
  }
}

Status conv_run(KernelContext& ctx) {
  MOTE_RETURN_IF_ERROR(fused::check_f32_inputs_and_activation(ctx));
  auto resolved = resolve_geometry(ctx);
  if (!resolved.ok()) return ctx.fail(resolved.status().message());
  const ConvGeometry& g = *resolved;
  if (ctx.out(0).numel() == 0) return {};
  if (use_depthwise(g)) {
    run_depthwise(ctx, g);
    return {};
  }
  if (writes_blocks_directly(ctx, g)) {
    run_writing_blocks(ctx, g);
    return {};
  }
  // The state was made for the shapes at prepare; input shapes may have
  // changed since, so each path checks that its weights still fit.
  const auto* state = static_cast<const ConvState*>(ctx.state);
  if (state && state->weights != ctx.in(1).raw()) state = nullptr;
  const float* bias = ctx.has_input(2) ? ctx.in(2).data<float>() : nullptr;
  const float* residual = ctx.has_input(3) ? ctx.in(3).data<float>() : nullptr;
  if (direct_conv_applies(g)) {
    std::vector<float> packed_now;
    if (!state || !state->direct_fits(g)) packed_now = direct_conv_pack_weights(g, ctx.in(1).data<float>());
    direct_conv(g, packed_now.empty() ? state->direct : packed_now, ctx.in(0).data<float>(), bias, residual,
                ctx.op.fused.get(), ctx.out(0).data<float>(), *ctx.pool);
  } else if (state && state->winograd_fits(g)) {
    winograd_conv(g, state->winograd, ctx.in(0).data<float>(), bias, residual, ctx.op.fused.get(),
                  ctx.out(0).data<float>(), *ctx.pool);
  } else if (state && !residual && state->dilated_winograd_fits(g)) {
    dilated_winograd_conv(g, state->winograd, ctx.in(0).data<float>(), bias, ctx.op.fused.get(),
                          ctx.out(0).data<float>(), *ctx.pool);
  } else if (state && state->packed_fits(g, turned_product(ctx, g))) {
    run_gemm_paths(ctx, g, state->packed);
  } else {
    run_gemm_paths(ctx, g, pack_weights(g, ctx.in(1).data<float>(), turned_product(ctx, g)));
  }
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(Conv, mote::cpu::conv_run, mote::cpu::conv_prepare, mote::cpu::conv_layouts);
