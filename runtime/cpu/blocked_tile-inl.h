// The start and end of a tile of the blocked convolutions (blocked_tile.hpp):
// kRows pixels x kBlocks output blocks of accumulators, in registers when
// the caller's loops are unrolled. A pixel's block is `lanes` floats.
//
// A per-target -inl header: include it after hwy/highway.h in a file compiled
// through hwy/foreach_target.h.
#if defined(MOTE_CPU_BLOCKED_TILE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MOTE_CPU_BLOCKED_TILE_INL_H_
#undef MOTE_CPU_BLOCKED_TILE_INL_H_
#else
#define MOTE_CPU_BLOCKED_TILE_INL_H_
#endif

#include "hwy/highway.h"
#include "runtime/cpu/blocked_tile.hpp"
#include "runtime/cpu/simd_clamp-inl.h"
#include "runtime/cpu/simd_tile_activation-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mote::blocked_tile {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Pixels per tile with two output blocks: 16 accumulators where there are
// 32 vector registers (with 12 pixels, 24 accumulators, GCC kept a weight
// vector on the stack: MobileNetV2's 14x14 96 -> 576 layer 0.148 ms against
// 0.108 with 10 pixels and 0.103 with 8), 12 where there are 16 (AVX2).
// Tiles of 6 pixels x 4 blocks (one broadcast per 4 FMAs instead of 2) were
// no faster on Zen 5: MobileNetV2 3.72-3.75 ms against 3.76-3.77.
#if HWY_TARGET == HWY_AVX2
constexpr int kTilePixels = 6;
#else
constexpr int kTilePixels = 8;
#endif

// Input channels per pass over a pair of output blocks' weights: 16 KiB of
// them (for a 1x1 layer 128 channels of 16 lanes x 2 blocks), which stay in
// L1 while every tile of a chunk reads them; at least one block. Summed
// over all channels at once, a layer with many (SqueezeNet's 512 -> 1000
// classifier) streamed 64 KiB of weights from L2 per tile of 8 pixels: 2.17
// ms against 1.28 for the packed GEMM. `taps`: the kernel's volume.
template <class D>
constexpr int64_t ChannelsPerPass(D /* tag */, int64_t taps) {
  constexpr int64_t kWeightBytesPerPass = 16 * 1024;
  constexpr int64_t lanes = static_cast<int64_t>(hn::MaxLanes(D()));
  const int64_t fit = kWeightBytesPerPass / (2 * taps * lanes * int64_t{sizeof(float)}) / lanes * lanes;
  return fit > lanes ? fit : lanes;
}

// One input channel: its value at each of the tile's pixels (kXPixel
// floats apart) times the output blocks' weight vectors (w_block apart).
template <int kRows, int kBlocks, int64_t kXPixel, class D>
HWY_INLINE void MultiplyChannel(D d, const float* HWY_RESTRICT xp, const float* HWY_RESTRICT wp, int64_t w_block,
                                hn::Vec<D>* acc) {
  hn::Vec<D> wv[kBlocks];
#pragma GCC unroll 4
  for (int b = 0; b < kBlocks; ++b) wv[b] = hn::LoadU(d, wp + b * w_block);
#pragma GCC unroll 32
  for (int r = 0; r < kRows; ++r) {
    const hn::Vec<D> xv = hn::Set(d, xp[r * kXPixel]);
#pragma GCC unroll 4
    for (int b = 0; b < kBlocks; ++b) acc[r * kBlocks + b] = hn::MulAdd(xv, wv[b], acc[r * kBlocks + b]);
  }
}

// Where a tile's pixels lie in y (and in the residual), in floats from the
// store's y: consecutive pixels, or a map with pixels to drop (negative).
// The tiles' loops are unrolled, so a map is read once per pixel and store.
template <int64_t kLanes>
struct ConsecutivePixels {
  static constexpr int64_t at(int r) { return r * kLanes; }
  static constexpr bool kept(int /* r */) { return true; }
};
struct MappedPixels {
  const int64_t* offsets;
  int64_t at(int r) const { return offsets[r]; }
  bool kept(int r) const { return offsets[r] >= 0; }
};

// Zeros, or the partial sums an earlier call left in y.
template <int kRows, int kBlocks, class D, class Pixels>
HWY_INLINE void StartTile(D d, const cpu::BlockedTileStore& s, const Pixels& pixels, hn::Vec<D>* acc) {
#pragma GCC unroll 32
  for (int i = 0; i < kRows * kBlocks; ++i) acc[i] = hn::Zero(d);
  if (!s.resume) return;
#pragma GCC unroll 4
  for (int b = 0; b < kBlocks; ++b) {
#pragma GCC unroll 32
    for (int r = 0; r < kRows; ++r) {
      if (pixels.kept(r)) acc[r * kBlocks + b] = hn::LoadU(d, s.y + b * s.y_block + pixels.at(r));
    }
  }
}

// Stores the partial sums, or on the last call the finished tile: bias,
// residual, clamp, then the activation in registers (tile_activation.hpp).
template <int kRows, int kBlocks, class D, class Pixels>
HWY_INLINE void FinishTile(D d, const cpu::BlockedTileStore& s, const Pixels& pixels, hn::Vec<D>* acc) {
  constexpr int64_t lanes = static_cast<int64_t>(hn::MaxLanes(D()));
  if (s.finish) {
    const hn::Vec<D> lo = hn::Set(d, s.lo), hi = hn::Set(d, s.hi);
#pragma GCC unroll 4
    for (int b = 0; b < kBlocks; ++b) {
      const hn::Vec<D> bias = hn::LoadU(d, s.bias + b * lanes);
#pragma GCC unroll 32
      for (int r = 0; r < kRows; ++r) {
        hn::Vec<D> v = hn::Add(acc[r * kBlocks + b], bias);
        if (s.residual && pixels.kept(r)) v = hn::Add(v, hn::LoadU(d, s.residual + b * s.y_block + pixels.at(r)));
        acc[r * kBlocks + b] = simd_clamp::HWY_NAMESPACE::ClampKeepingNaN(v, lo, hi);
      }
    }
    if (s.activation != cpu::TileActivation::kNone) {
#pragma GCC unroll 32
      for (int i = 0; i < kRows * kBlocks; ++i)
        acc[i] = simd_tile_activation::HWY_NAMESPACE::Activate(d, s.activation, acc[i]);
    }
  }
#pragma GCC unroll 4
  for (int b = 0; b < kBlocks; ++b) {
#pragma GCC unroll 32
    for (int r = 0; r < kRows; ++r) {
      if (pixels.kept(r)) hn::StoreU(acc[r * kBlocks + b], d, s.y + b * s.y_block + pixels.at(r));
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::blocked_tile
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
