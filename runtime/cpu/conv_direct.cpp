// SIMD bodies of conv_direct.hpp, compiled once per instruction set by
// Highway's foreach_target.h; the HWY_ONCE section picks one at run time
// and spreads the work over the pool.
//
// Scalable vector targets (SVE, RVV) are not compiled: tiles keep their
// accumulators in arrays of vectors, which sizeless types do not allow. The
// NEON code serves those CPUs.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_SSE4 | HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/conv_direct.cpp"
#include "hwy/foreach_target.h"  // must come before highway.h

#include <algorithm>
#include <vector>

#include "hwy/highway.h"
#include "runtime/cpu/conv_direct.hpp"
#include "runtime/cpu/padded_plane-inl.h"
#include "runtime/cpu/plane_conv_shape.hpp"
#include "runtime/cpu/simd_clamp-inl.h"
#include "runtime/cpu/simd_store-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_HAVE_SCALABLE
#error "conv_direct.cpp needs fixed-size vectors: disable scalable targets"
#endif

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;
using padded_plane::Unroll;

constexpr int kBlock = static_cast<int>(kDirectConvBlock);
// Output channels per tile: with 32 vector registers a whole block, 8 x 3
// accumulators, three input vectors and a broadcast weight; with 16 (AVX2)
// half a block, 4 x 3. Per tap the 3 input vectors, often split across
// cache lines, and the weights are loads: with 12 multiply-adds per tap the
// 4-channel tile ran near the load ports' limit (ResNet's 7x7 stem at 1
// thread, AVX-512: 57 % of the FMA peak).
#if (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3) || HWY_TARGET == HWY_NEON
constexpr int kRows = 8;
#else
constexpr int kRows = 4;
#endif
static_assert(kBlock % kRows == 0);
// Vectors along an output row per tile.
constexpr int kMaxCols = 3;
static_assert(kMaxCols == 3, "DirectConvItems' last tile of a row takes 3, 2 or 1 vectors");

// Floats of one channel's padded plane.
int64_t DirectConvPlaneFloats(const PlaneConvShape& s) { return padded_plane::PaddedLayout(s).floats(); }

// Input rows [r0, r1) of one channel plane x into its padded plane.
void DirectConvPadRows(const PlaneConvShape& s, const float* x, int64_t r0, int64_t r1, float* padded) {
  padded_plane::PadRows(s, padded_plane::PaddedLayout(s), x, /*zero=*/0, r0, r1, /*margins_zeroed=*/false, padded);
}

// kRows output channels x kCols vectors of one output row. `base` is the
// padded input under the tile's first output (channel 0, its top row);
// tap t reads base + taps[t] with weights w[t * kBlock ...]. Stores the
// first `valid` outputs of the row for the first `channels` channels, the
// rows of consecutive channels `out_plane` apart.
template <int kCols>
HWY_INLINE void Tile(D d, const float* HWY_RESTRICT base, const int64_t* HWY_RESTRICT taps, int64_t tap_count,
                     const float* HWY_RESTRICT w, const V* HWY_RESTRICT bias, V lo, V hi, float* HWY_RESTRICT out,
                     int64_t out_plane, int64_t channels, int64_t valid) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  V acc[kRows * kCols];
  Unroll<kRows * kCols>([&](auto i) HWY_ATTR { acc[i()] = bias[i() / kCols]; });
  for (int64_t t = 0; t < tap_count; ++t) {
    const float* HWY_RESTRICT p = base + taps[t];
    V x[kCols];
    Unroll<kCols>([&](auto c) HWY_ATTR { x[c()] = hn::LoadU(d, p + c() * lanes); });
    const float* HWY_RESTRICT wt = w + t * kBlock;
    Unroll<kRows>([&](auto r) HWY_ATTR {
      const V wv = hn::Set(d, wt[r()]);
      Unroll<kCols>([&](auto c) HWY_ATTR { acc[r() * kCols + c()] = hn::MulAdd(x[c()], wv, acc[r() * kCols + c()]); });
    });
  }
  Unroll<kRows>([&](auto r) HWY_ATTR {
    if (r() >= channels) return;
    Unroll<kCols>([&](auto c) HWY_ATTR {
      const int64_t first = c() * lanes;
      if (first >= valid) return;
      const V result = simd_clamp::HWY_NAMESPACE::ClampKeepingNaN(acc[r() * kCols + c()], lo, hi);
      simd_store::HWY_NAMESPACE::StoreFirstN(d, result, static_cast<size_t>(valid - first),
                                             out + r() * out_plane + first);
    });
  });
}

// Work items [begin, end) of one image, item = output row * blocks + block:
// the whole row of the block's channels. `padded` holds the image's C padded
// planes back to back; y is the image's output.
HWY_FLATTEN void DirectConvItems(const PlaneConvShape& s, int64_t channels, int64_t out_channels,
                                 const float* padded, const float* packed, const float* bias, float* y,
                                 int64_t begin, int64_t end) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const padded_plane::Layout l = padded_plane::PaddedLayout(s);
  const int64_t taps_per_channel = s.kernel_h * s.kernel_w;
  const int64_t tap_count = channels * taps_per_channel;
  // Where each tap (channel, kh, kw) reads relative to a tile's first output.
  thread_local std::vector<int64_t> taps;
  taps.resize(static_cast<size_t>(tap_count));
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
      for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
        taps[static_cast<size_t>((c * s.kernel_h + kh) * s.kernel_w + kw)] =
            c * l.floats() + kh * s.dilation_h * l.width +
            padded_plane::ColumnOffset(kw * s.dilation_w, s.stride_w, l.odd_half);
      }
    }
  }
  const int64_t blocks = (out_channels + kBlock - 1) / kBlock;
  const int64_t out_plane = s.out_h * s.out_w;
  const V lo = hn::Set(d, s.clamp_min), hi = hn::Set(d, s.clamp_max);
  for (int64_t item = begin; item < end; ++item) {
    const int64_t oh = item / blocks;
    const float* row = padded + oh * s.stride_h * l.width;
    for (int64_t m0 = item % blocks * kBlock; m0 < std::min<int64_t>(out_channels, (item % blocks + 1) * kBlock);
         m0 += kRows) {
      const int64_t count = std::min<int64_t>(kRows, out_channels - m0);
      V biases[kRows];
      for (int r = 0; r < kRows; ++r) biases[r] = hn::Set(d, bias && r < count ? bias[m0 + r] : 0.0f);
      // The tile's channels within their packed block.
      const float* w = packed + m0 / kBlock * kBlock * tap_count + m0 % kBlock;
      float* out = y + m0 * out_plane + oh * s.out_w;
      // Output column ow reads from padded column ow * stride_w, which is
      // column ow of the even half when rows are split by parity.
      int64_t ow = 0;
      for (; ow + kMaxCols * lanes <= s.out_w; ow += kMaxCols * lanes) {
        Tile<kMaxCols>(d, row + ow, taps.data(), tap_count, w, biases, lo, hi, out + ow, out_plane, count,
                       kMaxCols * lanes);
      }
      const int64_t rest = s.out_w - ow;
      if (rest > 2 * lanes) {
        Tile<3>(d, row + ow, taps.data(), tap_count, w, biases, lo, hi, out + ow, out_plane, count, rest);
      } else if (rest > lanes) {
        Tile<2>(d, row + ow, taps.data(), tap_count, w, biases, lo, hi, out + ow, out_plane, count, rest);
      } else if (rest > 0) {
        Tile<1>(d, row + ow, taps.data(), tap_count, w, biases, lo, hi, out + ow, out_plane, count, rest);
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "runtime/cpu/fused_epilogue.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/cpu/thread_scratch.hpp"

namespace mote::cpu {

HWY_EXPORT(DirectConvPlaneFloats);
HWY_EXPORT(DirectConvPadRows);
HWY_EXPORT(DirectConvItems);

bool direct_conv_applies(const ConvGeometry& g) {
  return g.group == 1 && g.in_channels <= kDirectConvMaxChannels && g.spatial_rank <= 2 &&
         plane_conv_supports_stride(g.stride[2]);
}

size_t direct_conv_pack_weights_size(const ConvGeometry& g) {
  const int64_t blocks = (g.out_channels + kDirectConvBlock - 1) / kDirectConvBlock;
  return static_cast<size_t>(blocks * g.in_channels * g.kernel_volume() * kDirectConvBlock);
}

std::vector<float> direct_conv_pack_weights(const ConvGeometry& g, const float* w) {
  const int64_t m = g.out_channels, taps = g.in_channels * g.kernel_volume();
  std::vector<float> packed(direct_conv_pack_weights_size(g), 0.0f);
  for (int64_t oc = 0; oc < m; ++oc) {
    float* dst = packed.data() + oc / kDirectConvBlock * taps * kDirectConvBlock + oc % kDirectConvBlock;
    for (int64_t t = 0; t < taps; ++t) dst[t * kDirectConvBlock] = w[oc * taps + t];
  }
  return packed;
}

void direct_conv(const ConvGeometry& g, const std::vector<float>& packed, const float* x, const float* bias,
                 const float* residual, const fb::FusedActivationT* act, float* y, ThreadPool& pool) {
  // With a residual the activation waits for it: a pass per finished row.
  const GemmEpilogue clamp = residual ? GemmEpilogue{} : fused::clamp_epilogue(act);
  const PlaneConvShape s = plane_conv_shape(g, clamp.clamp_min, clamp.clamp_max);
  const bool row_pass = residual || fused::needs_pass(act);
  const int64_t channels = g.in_channels, out_channels = g.out_channels;
  const int64_t in_plane = g.in_pixels(), out_plane = g.out_pixels();
  const int64_t plane_floats = HWY_DYNAMIC_DISPATCH(DirectConvPlaneFloats)(s);
  // Shared by the pool's tasks; none of them calls thread_scratch.
  float* padded = thread_scratch(static_cast<size_t>(channels * plane_floats));
  const int64_t blocks = (out_channels + kDirectConvBlock - 1) / kDirectConvBlock;
  for (int64_t n = 0; n < g.batch; ++n) {
    const float* xn = x + n * channels * in_plane;
    float* yn = y + n * out_channels * out_plane;
    pool.parallel_for(channels * s.in_h, 16, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end;) {
        const int64_t c = i / s.in_h, r0 = i % s.in_h, r1 = std::min(s.in_h, r0 + end - i);
        HWY_DYNAMIC_DISPATCH(DirectConvPadRows)(s, xn + c * in_plane, r0, r1, padded + c * plane_floats);
        i += r1 - r0;
      }
    });
    pool.parallel_for(s.out_h * blocks, 1, [&](int64_t begin, int64_t end) {
      HWY_DYNAMIC_DISPATCH(DirectConvItems)(s, channels, out_channels, padded, packed.data(), bias, yn, begin, end);
      if (!row_pass) return;
      for (int64_t item = begin; item < end; ++item) {
        const int64_t oh = item / blocks, m0 = item % blocks * kDirectConvBlock;
        for (int64_t m = m0; m < std::min(out_channels, m0 + kDirectConvBlock); ++m) {
          float* row = yn + m * out_plane + oh * s.out_w;
          if (residual) {
            fused::add_residual_and_activate(act, row, residual + (row - y), s.out_w);
          } else {
            apply_fused_activation(act, row, s.out_w);
          }
        }
      }
    });
  }
}

}  // namespace mote::cpu
#endif  // HWY_ONCE
