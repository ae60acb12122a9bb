// SIMD bodies of pointwise_blocked.hpp, compiled once per instruction set by
// Highway's foreach_target.h; the HWY_ONCE section spreads the tiles over
// the pool. The target list is conv_depthwise.cpp's, so both kernels use the
// same vector width: the block of the layout they share.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_SSE4 | HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/pointwise_blocked.cpp"
#include "runtime/cpu/pointwise_blocked.hpp"

#include <algorithm>

#include "hwy/foreach_target.h"  // must come before highway.h
#include "hwy/highway.h"
#include "runtime/cpu/blocked_tile-inl.h"
#include "runtime/cpu/thread_pool.hpp"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_HAVE_SCALABLE
#error "pointwise_blocked.cpp needs fixed-size vectors: disable scalable targets"
#endif

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;
using Consecutive = blocked_tile::HWY_NAMESPACE::ConsecutivePixels<static_cast<int64_t>(hn::MaxLanes(D()))>;

constexpr int kPixels = blocked_tile::HWY_NAMESPACE::kTilePixels;

// Where a tile reads. Input channel ci of pixel p is at
// x + (ci / lanes) * x_block + (ci % lanes) * x_channel + p * x_pixel (NCHW:
// a plane per channel; blocked: a block per `lanes` channels). x_pixel is a
// template constant of the tiles (kXBlocked), so each pixel's broadcast reads
// at an immediate offset: as a run-time stride it took a register per pixel
// and GCC, short of general registers, kept an accumulator on the stack.
struct TileArgs {
  const float* x;
  int64_t x_block, x_channel;
  int64_t in_channels;
  const float* w;   // the first output block's [C_in rounded up][lanes]
  int64_t w_block;  // from one output block's weights to the next
  // The input channels [k0, k1) this call sums (store.resume, store.finish).
  int64_t k0, k1;
  BlockedTileStore store;
};

// kRows pixels x kBlocks output blocks, input channels [k0, k1); on the
// last pass, bias, residual and clamp as it stores. The loops have constant bounds and are
// unrolled so the accumulators stay in registers. Not inlined: each tile
// shape gets its own register allocation (flattened into one function with
// the other shapes, GCC spilled weight vectors to the stack in the hot loop;
// MobileNetV2 at 1 thread 5.04 -> 3.77 ms with both changes).
template <int kRows, int kBlocks, bool kXBlocked>
HWY_NOINLINE void Tile(D d, const TileArgs& t) {
  constexpr int64_t lanes = static_cast<int64_t>(hn::MaxLanes(D()));
  constexpr int64_t x_pixel = kXBlocked ? lanes : 1;
  V acc[kRows * kBlocks];
  blocked_tile::HWY_NAMESPACE::StartTile<kRows, kBlocks>(d, t.store, Consecutive(), acc);
  for (int64_t c0 = t.k0; c0 < t.k1; c0 += lanes) {
    const float* HWY_RESTRICT xb = t.x + c0 / lanes * t.x_block;
    const int64_t count = std::min(lanes, t.k1 - c0);
    for (int64_t c = 0; c < count; ++c) {
      blocked_tile::HWY_NAMESPACE::MultiplyChannel<kRows, kBlocks, x_pixel>(d, xb + c * (kXBlocked ? 1 : t.x_channel),
                                                                            t.w + (c0 + c) * lanes, t.w_block, acc);
    }
  }
  blocked_tile::HWY_NAMESPACE::FinishTile<kRows, kBlocks>(d, t.store, Consecutive(), acc);
}

// Pixels [p0, p1) of kBlocks output blocks: whole tiles, then tiles of 4
// and of 1 for the rest, in passes over the input channels that keep a
// pass's weights in L1 (ChannelsPerPass). `t` is at pixel 0.
template <int kBlocks, bool kXBlocked>
void Pixels(D d, TileArgs t, int64_t p0, int64_t p1) {
  constexpr int64_t lanes = static_cast<int64_t>(hn::MaxLanes(D()));
  constexpr int64_t pass = blocked_tile::HWY_NAMESPACE::ChannelsPerPass(D(), 1);
  // At least one pass, so that a layer without input channels still writes
  // its bias.
  t.k0 = 0;
  do {
    t.k1 = t.in_channels - t.k0 > pass ? t.k0 + pass : t.in_channels;
    t.store.resume = t.k0 > 0;
    t.store.finish = t.k1 == t.in_channels;
    const auto at = [&](int64_t p) {
      TileArgs s = t;
      s.x += p * (kXBlocked ? lanes : 1);
      s.store.y += p * lanes;
      if (s.store.residual) s.store.residual += p * lanes;
      return s;
    };
    int64_t p = p0;
    for (; p + kPixels <= p1; p += kPixels) Tile<kPixels, kBlocks, kXBlocked>(d, at(p));
    for (; p + 4 <= p1; p += 4) Tile<4, kBlocks, kXBlocked>(d, at(p));
    for (; p < p1; ++p) Tile<1, kBlocks, kXBlocked>(d, at(p));
    t.k0 = t.k1;
  } while (t.k0 < t.in_channels);
}

// One task: image n, output blocks [b0, b0 + blocks) (1 or 2), pixels
// [p0, p1); then the epilogue's activation, if any (not in_tile's), over
// what it wrote, still in cache.
void PointwiseTask(const BlockedConvWeights& w, const float* bias, int64_t pixels, const float* x, bool x_blocked,
                   const float* residual, const GemmEpilogue& ep, TileActivation in_tile, float* y, int64_t n,
                   int64_t b0, int64_t blocks, int64_t p0, int64_t p1) {
  const D d;
  const int64_t lanes = w.lanes;
  const int64_t in_blocks = (w.in_channels + lanes - 1) / lanes;
  const int64_t out_blocks = (w.out_channels + lanes - 1) / lanes;
  const int64_t y_block = pixels * lanes;
  TileArgs t;
  t.x = x + n * (x_blocked ? in_blocks * lanes : w.in_channels) * pixels;
  t.x_block = lanes * pixels;
  t.x_channel = x_blocked ? 1 : pixels;
  t.in_channels = w.in_channels;
  t.w_block = w.block_floats();
  t.w = w.weights.data() + b0 * t.w_block;
  const int64_t y_at = (n * out_blocks + b0) * y_block;
  t.store = {y + y_at,     y_block,      bias + b0 * lanes, residual ? residual + y_at : nullptr,
             ep.clamp_min, ep.clamp_max, in_tile,           false,
             false};
  if (blocks == 2) {
    x_blocked ? Pixels<2, true>(d, t, p0, p1) : Pixels<2, false>(d, t, p0, p1);
  } else {
    x_blocked ? Pixels<1, true>(d, t, p0, p1) : Pixels<1, false>(d, t, p0, p1);
  }
  if (ep.activation) {
    for (int64_t b = 0; b < blocks; ++b) {
      ep.activation(ep.activation_state, t.store.y + b * y_block + p0 * lanes, (p1 - p0) * lanes);
    }
  }
}

int64_t PointwiseLanes() { return static_cast<int64_t>(hn::Lanes(D())); }
int64_t PointwisePixelsPerTile() { return kPixels; }

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu {

HWY_EXPORT(PointwiseTask);
HWY_EXPORT(PointwiseLanes);
HWY_EXPORT(PointwisePixelsPerTile);

int64_t pointwise_blocked_lanes() { return HWY_DYNAMIC_DISPATCH(PointwiseLanes)(); }

// Tasks: per image, chunks of about 8 tiles of pixels, each for every pair
// of output blocks in turn (the pairs of one chunk run back to back, so its
// input stays in cache); a lone last block is a pair of one.
void pointwise_blocked(const BlockedConvWeights& w, const float* bias, int64_t batch, int64_t pixels, const float* x,
                       bool x_blocked, const float* residual, const GemmEpilogue& epilogue, TileActivation in_tile,
                       float* y, ThreadPool& pool) {
  const int64_t out_blocks = (w.out_channels + w.lanes - 1) / w.lanes;
  const int64_t pairs = (out_blocks + 1) / 2;
  const int64_t chunk = 8 * HWY_DYNAMIC_DISPATCH(PointwisePixelsPerTile)();
  const int64_t chunks = (pixels + chunk - 1) / chunk;
  const auto task = HWY_DYNAMIC_DISPATCH(PointwiseTask);
  pool.parallel_for(batch * chunks * pairs, 1, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t pair = t % pairs, c = t / pairs % chunks, n = t / pairs / chunks;
      const int64_t b0 = 2 * pair;
      const int64_t p0 = c * chunk, p1 = std::min(pixels, p0 + chunk);
      task(w, bias, pixels, x, x_blocked, residual, epilogue, in_tile, y, n, b0,
           std::min<int64_t>(2, out_blocks - b0), p0, p1);
    }
  });
}

}  // namespace mote::cpu
#endif  // HWY_ONCE
