// SIMD bodies of conv_blocked.hpp, compiled once per instruction set by
// Highway's foreach_target.h; the HWY_ONCE section spreads the output rows
// over the pool. The target list is conv_depthwise.cpp's and
// pointwise_blocked.cpp's, so all three use the same vector width: the
// block of the layout they share.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_SSE4 | HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/conv_blocked.cpp"
#include "runtime/cpu/conv_blocked.hpp"

#include <algorithm>
#include <vector>

#include "hwy/foreach_target.h"  // must come before highway.h
#include "hwy/highway.h"
#include "runtime/cpu/blocked_tile-inl.h"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/cpu/thread_scratch.hpp"

#ifndef MOTE_CPU_CONV_BLOCKED_ONCE
#define MOTE_CPU_CONV_BLOCKED_ONCE
namespace mote::cpu {
namespace {

// The plane geometry a task walks, rows and columns only (a 1-D layer is a
// 2-D one of one row).
struct Plane {
  int64_t in_h, in_w, out_h, out_w;
  int64_t kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;

  explicit Plane(const ConvGeometry& g)
      : in_h(g.in_size[1]),
        in_w(g.in_size[2]),
        out_h(g.out_size[1]),
        out_w(g.out_size[2]),
        kernel_h(g.kernel[1]),
        kernel_w(g.kernel[2]),
        stride_h(g.stride[1]),
        stride_w(g.stride[2]),
        dilation_h(g.dilation[1]),
        dilation_w(g.dilation[2]),
        pad_top(g.pad_begin[1]),
        pad_left(g.pad_begin[2]) {}

  // Taps [lo, hi) of a kernel axis that land inside [0, size) from `first`
  // (the input index of tap 0), `step` apart.
  static void inside(int64_t first, int64_t step, int64_t taps, int64_t size, int64_t& lo, int64_t& hi) {
    lo = first < 0 ? std::min(taps, (-first + step - 1) / step) : 0;
    hi = first > size - 1 ? 0 : std::min(taps, (size - 1 - first) / step + 1);
    hi = std::max(hi, lo);
  }
};

// A zero-padded channel-blocked copy of a stride-1 layer's input, which
// WideRows reads: [N][input block][padded rows][width][lanes].
struct PaddedInput {
  const float* data = nullptr;  // null: the rows read the input where it is
  int64_t width = 0;            // pixels per padded row
  int64_t block_floats = 0;     // floats per image and input block
};

}  // namespace
}  // namespace mote::cpu
#endif

HWY_BEFORE_NAMESPACE();
namespace mote::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_HAVE_SCALABLE
#error "conv_blocked.cpp needs fixed-size vectors: disable scalable targets"
#endif

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;
using Consecutive = blocked_tile::HWY_NAMESPACE::ConsecutivePixels<static_cast<int64_t>(hn::MaxLanes(D()))>;
using Mapped = blocked_tile::HWY_NAMESPACE::MappedPixels;

constexpr int kPixels = blocked_tile::HWY_NAMESPACE::kTilePixels;

// Where a tile reads. Input channel ci at input pixel q is at
// x + (ci / lanes) * x_block + (ci % lanes) * x_channel + q * (lanes or 1);
// tap i of the tile's pixel r reads q = the pixel at tap_x[i] plus r
// strides (kXPixel, a template constant for the same reason as
// pointwise_blocked.cpp's x_pixel).
struct TapTileArgs {
  const float* x;
  int64_t x_block, x_channel;
  const int64_t* tap_x;  // per tap: floats from a channel's start to the tile's first pixel's input
  const int64_t* tap_w;  // per tap: floats from an input block's weights to the tap's
  int64_t taps;
  const float* w;      // the first output block's
  int64_t w_block;     // from one output block's weights to the next
  int64_t w_in_block;  // from one input block's weights to the next
  // The input channels [k0, k1) this call sums (store.resume, store.finish);
  // k0 is a multiple of lanes.
  int64_t k0, k1;
  BlockedTileStore store;
};

// kRows pixels x kBlocks output blocks over input channels [k0, k1) and the
// tile's taps: per input block, per tap, its channels. From a blocked input
// a whole block's channels are consecutive floats, as are their weights
// (blocked_conv_weights.hpp), so that loop unrolls with constant offsets
// and reads no tap offsets (ResNet-18's 56x56 3x3 layer 2.76 -> 2.54 ms
// against taps innermost, one run each). Not inlined, so each shape gets
// its own register allocation.
template <int kRows, int kBlocks, int64_t kXPixel, bool kXBlocked, class Pixels = Consecutive>
HWY_NOINLINE void TapTile(D d, const TapTileArgs& t, const Pixels& pixels = Pixels()) {
  constexpr int64_t lanes = static_cast<int64_t>(hn::MaxLanes(D()));
  V acc[kRows * kBlocks];
  blocked_tile::HWY_NAMESPACE::StartTile<kRows, kBlocks>(d, t.store, pixels, acc);
  for (int64_t c0 = t.k0; c0 < t.k1; c0 += lanes) {
    const float* HWY_RESTRICT xb = t.x + c0 / lanes * t.x_block;
    const float* HWY_RESTRICT wb = t.w + c0 / lanes * t.w_in_block;
    const int64_t count = std::min(lanes, t.k1 - c0);
    for (int64_t i = 0; i < t.taps; ++i) {
      const float* HWY_RESTRICT xp = xb + t.tap_x[i];
      const float* HWY_RESTRICT wp = wb + t.tap_w[i];
      if (kXBlocked && count == lanes) {
#pragma GCC unroll 16
        for (int64_t c = 0; c < lanes; ++c)
          blocked_tile::HWY_NAMESPACE::MultiplyChannel<kRows, kBlocks, kXPixel>(d, xp + c, wp + c * lanes, t.w_block,
                                                                                acc);
      } else {
        for (int64_t c = 0; c < count; ++c) {
          blocked_tile::HWY_NAMESPACE::MultiplyChannel<kRows, kBlocks, kXPixel>(d, xp + c * t.x_channel,
                                                                                wp + c * lanes, t.w_block, acc);
        }
      }
    }
  }
  blocked_tile::HWY_NAMESPACE::FinishTile<kRows, kBlocks>(d, t.store, pixels, acc);
}

// Output rows [oh0, oh1) of kBlocks output blocks, in passes over the input
// channels that keep a pass's weights in L1. `t` has everything but the
// taps, the channels and where the tile stores (t.store at output pixel 0).
template <int kBlocks, int kStride, bool kXBlocked>
void Rows(D d, TapTileArgs t, const Plane& p, int64_t in_channels, int64_t oh0, int64_t oh1) {
  constexpr int64_t lanes = static_cast<int64_t>(hn::MaxLanes(D()));
  constexpr int64_t unit = kXBlocked ? lanes : 1;  // floats from one input pixel to the next
  constexpr int64_t x_pixel = kStride * unit;
  const int64_t volume = p.kernel_h * p.kernel_w;
  const int64_t pass = blocked_tile::HWY_NAMESPACE::ChannelsPerPass(d, volume);
  // Columns whose every tap lies inside the row: [ow_lo, ow_hi).
  const int64_t last_start = p.in_w - 1 + p.pad_left - (p.kernel_w - 1) * p.dilation_w;
  const int64_t ow_lo = std::min(p.out_w, (p.pad_left + kStride - 1) / kStride);
  const int64_t ow_hi = std::max(ow_lo, last_start < 0 ? 0 : std::min(p.out_w, last_start / kStride + 1));
  thread_local std::vector<int64_t> taps;  // tap_x, then tap_w
  taps.resize(static_cast<size_t>(2 * volume));
  t.tap_x = taps.data();
  t.tap_w = taps.data() + volume;
  const BlockedTileStore at_origin = t.store;
  // The taps of kernel rows [kh_lo, kh_hi) and columns [kw_lo, kw_hi) for
  // an output pixel whose tap (0, 0) is input (ih0, iw0).
  const auto fill_taps = [&](int64_t ih0, int64_t iw0, int64_t kh_lo, int64_t kh_hi, int64_t kw_lo, int64_t kw_hi) {
    int64_t n = 0;
    for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
      for (int64_t kw = kw_lo; kw < kw_hi; ++kw, ++n) {
        taps[static_cast<size_t>(n)] = ((ih0 + kh * p.dilation_h) * p.in_w + iw0 + kw * p.dilation_w) * unit;
        taps[static_cast<size_t>(volume + n)] = (kh * p.kernel_w + kw) * lanes * lanes;
      }
    }
    t.taps = n;
  };
  t.k0 = 0;
  do {
    t.k1 = in_channels - t.k0 > pass ? t.k0 + pass : in_channels;
    for (int64_t oh = oh0; oh < oh1; ++oh) {
      const int64_t ih0 = oh * p.stride_h - p.pad_top;
      int64_t kh_lo, kh_hi;
      Plane::inside(ih0, p.dilation_h, p.kernel_h, p.in_h, kh_lo, kh_hi);
      const auto at = [&](int64_t ow) {
        TapTileArgs s = t;
        const int64_t y_at = (oh * p.out_w + ow) * lanes;
        s.store.y = at_origin.y + y_at;
        if (s.store.residual) s.store.residual = at_origin.residual + y_at;
        s.store.resume = t.k0 > 0;
        s.store.finish = t.k1 == in_channels;
        return s;
      };
      // Interior tiles share the taps of the first, shifted by their x.
      fill_taps(ih0, ow_lo * kStride - p.pad_left, kh_lo, kh_hi, 0, p.kernel_w);
      int64_t ow = ow_lo;
      const auto shifted = [&](int64_t col) {
        TapTileArgs s = at(col);
        s.x += (col - ow_lo) * x_pixel;
        return s;
      };
      for (; ow + kPixels <= ow_hi; ow += kPixels) TapTile<kPixels, kBlocks, x_pixel, kXBlocked>(d, shifted(ow));
      for (; ow + 4 <= ow_hi; ow += 4) TapTile<4, kBlocks, x_pixel, kXBlocked>(d, shifted(ow));
      for (; ow < ow_hi; ++ow) TapTile<1, kBlocks, 0, kXBlocked>(d, shifted(ow));
      // Pixels by the left and right padding, one at a time, their taps cut.
      for (int64_t col = 0; col < p.out_w; ++col) {
        if (col == ow_lo) col = ow_hi;
        if (col >= p.out_w) break;
        const int64_t iw0 = col * kStride - p.pad_left;
        int64_t kw_lo, kw_hi;
        Plane::inside(iw0, p.dilation_w, p.kernel_w, p.in_w, kw_lo, kw_hi);
        fill_taps(ih0, iw0, kh_lo, kh_hi, kw_lo, kw_hi);
        TapTile<1, kBlocks, 0, kXBlocked>(d, at(col));
      }
    }
    t.k0 = t.k1;
  } while (t.k0 < in_channels);
}

// Output rows [oh0, oh1) of a stride-1 layer from a zero-padded blocked copy
// of the input (padded_input), kBlocks output blocks. In the copy, output
// pixel (oh, ow) and its taps lie at virtual pixel oh * width + ow plus
// constant offsets, width being the padded row's, so tiles run along the
// virtual pixels across output rows; the (width - out_w) pixels past each
// row's end are computed and dropped (Mapped). Along real rows, ResNet-18's
// 7x7, 14x14 and 28x28 layers spent a third of their time in the pixels by
// the padding and the rows' remainders, one pixel per tile.
template <int kBlocks>
void WideRows(D d, TapTileArgs t, const Plane& p, int64_t width, int64_t in_channels, int64_t oh0, int64_t oh1) {
  constexpr int64_t lanes = static_cast<int64_t>(hn::MaxLanes(D()));
  const int64_t volume = p.kernel_h * p.kernel_w;
  const int64_t pass = blocked_tile::HWY_NAMESPACE::ChannelsPerPass(d, volume);
  thread_local std::vector<int64_t> taps;  // tap_x, then tap_w
  taps.resize(static_cast<size_t>(2 * volume));
  for (int64_t kh = 0, i = 0; kh < p.kernel_h; ++kh) {
    for (int64_t kw = 0; kw < p.kernel_w; ++kw, ++i) {
      taps[static_cast<size_t>(i)] = (kh * p.dilation_h * width + kw * p.dilation_w) * lanes;
      taps[static_cast<size_t>(volume + i)] = i * lanes * lanes;
    }
  }
  t.tap_x = taps.data();
  t.tap_w = taps.data() + volume;
  t.taps = volume;
  const int64_t v0 = oh0 * width, v1 = (oh1 - 1) * width + p.out_w;
  int64_t offsets[kPixels];
  const auto tile = [&](int64_t v, int rows) {
    for (int r = 0; r < rows; ++r) {
      const int64_t oh = (v + r) / width, ow = (v + r) % width;
      offsets[r] = ow < p.out_w ? (oh * p.out_w + ow) * lanes : -1;
    }
    TapTileArgs s = t;
    s.x += v * lanes;
    s.store.resume = t.k0 > 0;
    s.store.finish = t.k1 == in_channels;
    return s;
  };
  const Mapped pixels{offsets};
  t.k0 = 0;
  do {
    t.k1 = in_channels - t.k0 > pass ? t.k0 + pass : in_channels;
    int64_t v = v0;
    for (; v + kPixels <= v1; v += kPixels) TapTile<kPixels, kBlocks, lanes, true>(d, tile(v, kPixels), pixels);
    for (; v + 4 <= v1; v += 4) TapTile<4, kBlocks, lanes, true>(d, tile(v, 4), pixels);
    for (; v < v1; ++v) TapTile<1, kBlocks, 0, true>(d, tile(v, 1), pixels);
    t.k0 = t.k1;
  } while (t.k0 < in_channels);
}

// One task: image n, output blocks [b0, b0 + blocks) (1 or 2), output rows
// [oh0, oh1); then the epilogue's activation, if any (not in_tile's), over
// what it wrote, still in cache.
void ConvBlockedTask(const ConvGeometry& g, const BlockedConvWeights& w, const float* bias, const float* x,
                     bool x_blocked, const PaddedInput& padded, const float* residual, const GemmEpilogue& ep,
                     TileActivation in_tile, float* y, int64_t n, int64_t b0, int64_t blocks, int64_t oh0,
                     int64_t oh1) {
  const D d;
  const Plane p(g);
  const int64_t lanes = w.lanes;
  const int64_t in_blocks = (w.in_channels + lanes - 1) / lanes;
  const int64_t out_blocks = (w.out_channels + lanes - 1) / lanes;
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  const int64_t y_block = out_plane * lanes;
  TapTileArgs t;
  t.x = x + n * (x_blocked ? in_blocks * lanes : w.in_channels) * in_plane;
  t.x_block = lanes * in_plane;
  t.x_channel = x_blocked ? 1 : in_plane;
  t.w_block = w.block_floats();
  t.w_in_block = w.kernel_volume * lanes * lanes;
  t.w = w.weights.data() + b0 * t.w_block;
  const int64_t y_at = (n * out_blocks + b0) * y_block;
  t.store = {y + y_at,     y_block,      bias + b0 * lanes, residual ? residual + y_at : nullptr,
             ep.clamp_min, ep.clamp_max, in_tile,           false,
             false};
  const int64_t c = w.in_channels;
  const bool two = blocks == 2, one_step = p.stride_w == 1;
  if (padded.data) {
    t.x = padded.data + n * in_blocks * padded.block_floats;
    t.x_block = padded.block_floats;
    t.x_channel = 1;
    two ? WideRows<2>(d, t, p, padded.width, c, oh0, oh1) : WideRows<1>(d, t, p, padded.width, c, oh0, oh1);
  } else if (x_blocked) {
    if (two) {
      one_step ? Rows<2, 1, true>(d, t, p, c, oh0, oh1) : Rows<2, 2, true>(d, t, p, c, oh0, oh1);
    } else {
      one_step ? Rows<1, 1, true>(d, t, p, c, oh0, oh1) : Rows<1, 2, true>(d, t, p, c, oh0, oh1);
    }
  } else {
    if (two) {
      one_step ? Rows<2, 1, false>(d, t, p, c, oh0, oh1) : Rows<2, 2, false>(d, t, p, c, oh0, oh1);
    } else {
      one_step ? Rows<1, 1, false>(d, t, p, c, oh0, oh1) : Rows<1, 2, false>(d, t, p, c, oh0, oh1);
    }
  }
  if (ep.activation) {
    for (int64_t b = 0; b < blocks; ++b) {
      ep.activation(ep.activation_state, t.store.y + b * y_block + oh0 * p.out_w * lanes,
                    (oh1 - oh0) * p.out_w * lanes);
    }
  }
}

int64_t ConvBlockedLanes() { return static_cast<int64_t>(hn::Lanes(D())); }

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu {

HWY_EXPORT(ConvBlockedTask);
HWY_EXPORT(ConvBlockedLanes);

int64_t conv_blocked_lanes() { return HWY_DYNAMIC_DISPATCH(ConvBlockedLanes)(); }

bool conv_blocked_applies(const ConvGeometry& g) {
  return g.group == 1 && g.spatial_rank <= 2 && (g.stride[2] == 1 || g.stride[2] == 2);
}

namespace {

// The input of a stride-1 layer copied into thread_scratch as PaddedInput,
// NCHW inputs transposed into blocks on the way (their padding lanes zero;
// a blocked input's are copied as they are, and never read).
PaddedInput fill_padded_input(const ConvGeometry& g, int64_t lanes, const float* x, bool x_blocked,
                              ThreadPool& pool) {
  const int64_t in_h = g.in_size[1], in_w = g.in_size[2], top = g.pad_begin[1], left = g.pad_begin[2];
  const int64_t height = in_h + top + g.pad_end[1];
  PaddedInput padded;
  padded.width = in_w + left + g.pad_end[2];
  // No tile reads past the last padded row: the last output row's tiles end
  // at its last real pixel, whose taps end at the copy's last pixel.
  padded.block_floats = height * padded.width * lanes;
  const int64_t channels = g.in_channels, blocks = (channels + lanes - 1) / lanes;
  const int64_t row_floats = padded.width * lanes;
  float* dst = thread_scratch(static_cast<size_t>(g.batch * blocks * padded.block_floats));
  pool.parallel_for(g.batch * blocks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / blocks, cb = task % blocks;
      float* out = dst + task * padded.block_floats;
      std::fill(out, out + top * row_floats, 0.0f);
      std::fill(out + (top + in_h) * row_floats, out + padded.block_floats, 0.0f);
      for (int64_t ih = 0; ih < in_h; ++ih) {
        float* row = out + (top + ih) * row_floats;
        std::fill(row, row + left * lanes, 0.0f);
        std::fill(row + (left + in_w) * lanes, row + row_floats, 0.0f);
        if (x_blocked) {
          const float* src = x + ((n * blocks + cb) * in_h + ih) * in_w * lanes;
          std::copy(src, src + in_w * lanes, row + left * lanes);
          continue;
        }
        const int64_t count = std::min(lanes, channels - cb * lanes);
        for (int64_t c = 0; c < lanes; ++c) {
          float* col = row + left * lanes + c;
          if (c >= count) {
            for (int64_t iw = 0; iw < in_w; ++iw) col[iw * lanes] = 0.0f;
            continue;
          }
          const float* src = x + ((n * channels + cb * lanes + c) * in_h + ih) * in_w;
          for (int64_t iw = 0; iw < in_w; ++iw) col[iw * lanes] = src[iw];
        }
      }
    }
  });
  padded.data = dst;
  return padded;
}

}  // namespace

// Tasks: per image, chunks of output rows of about 64 pixels, each for every
// pair of output blocks in turn (the pairs of one chunk run back to back,
// so its input rows stay in cache); a lone last block is a pair of one.
void conv_blocked(const ConvGeometry& g, const BlockedConvWeights& w, const float* bias, const float* x,
                  bool x_blocked, const float* residual, const GemmEpilogue& epilogue, TileActivation in_tile,
                  float* y, ThreadPool& pool) {
  const int64_t out_blocks = (w.out_channels + w.lanes - 1) / w.lanes;
  const int64_t pairs = (out_blocks + 1) / 2;
  const int64_t out_h = g.out_size[1], out_w = g.out_size[2];
  const int64_t rows = std::max<int64_t>(1, 64 / std::max<int64_t>(1, out_w));
  const int64_t chunks = (out_h + rows - 1) / rows;
  const auto task = HWY_DYNAMIC_DISPATCH(ConvBlockedTask);
  const bool stride_one = g.stride[1] == 1 && g.stride[2] == 1;
  const PaddedInput padded = stride_one ? fill_padded_input(g, w.lanes, x, x_blocked, pool) : PaddedInput{};
  pool.parallel_for(g.batch * chunks * pairs, 1, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t pair = t % pairs, c = t / pairs % chunks, n = t / pairs / chunks;
      const int64_t b0 = 2 * pair;
      const int64_t oh0 = c * rows, oh1 = std::min(out_h, oh0 + rows);
      task(g, w, bias, x, x_blocked, padded, residual, epilogue, in_tile, y, n, b0,
           std::min<int64_t>(2, out_blocks - b0), oh0, oh1);
    }
  });
}

}  // namespace mote::cpu
#endif  // HWY_ONCE
