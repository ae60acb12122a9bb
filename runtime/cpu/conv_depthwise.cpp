// SIMD bodies of conv_depthwise.hpp, compiled once per instruction set by
// Highway's foreach_target.h; the HWY_ONCE section picks one at run time.
//
// Row path: the input plane is copied once into a zero-padded buffer, so the
// main loop is plain vector loads (de-interleaving ones for stride 2) with no
// bounds checks, computing tiles of eight output vectors: 2 rows x 4 vectors
// on wide planes, down to 8 rows x 1 vector on narrow ones. (Tiles of four
// vectors along one row left a 14-wide plane one dependent chain of
// multiply-adds: MobileNetV2's 14x14 layers 0.151 -> 0.091 ms at 1 thread.)
// Aligned per-tap row copies measured no faster on AVX-512.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/conv_depthwise.cpp"
#include "hwy/foreach_target.h"  // must come before highway.h

#include <algorithm>
#include <cstring>

#include "hwy/highway.h"
#include "runtime/cpu/conv_depthwise.hpp"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// Input values at columns c, c + kStride, ... for consecutive output columns.
template <int kStride>
HWY_INLINE V LoadColumns(D d, const float* HWY_RESTRICT p) {
  if constexpr (kStride == 1) {
    return hn::LoadU(d, p);
  } else {
    V even, odd;
    hn::LoadInterleaved2(d, p, even, odd);
    return even;
  }
}

// Accumulators per tile: two FMA ports with four cycles of latency need
// eight independent sums to stay busy.
constexpr int kMaxAccumulators = 8;
// Vectors along a row in one tile; the rest of the accumulators take rows.
constexpr int kMaxColumns = 4;
// Applies M to the index of each of the kMaxAccumulators named accumulators.
#define MOTE_FOR_EACH_ACCUMULATOR(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)

// Clamps one output vector and stores the first `valid - first` of its
// lanes at out + first (at most a whole vector).
HWY_INLINE void StoreClamped(D d, V acc, V lo, V hi, float* HWY_RESTRICT out, int64_t first, int64_t valid) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const V result = hn::Min(hn::Max(acc, lo), hi);
  if (first + lanes <= valid) {
    hn::StoreU(result, d, out + first);
  } else {
    // The partial last vector goes through the stack: no store past the row.
    HWY_ALIGN float tail[hn::MaxLanes(d)];
    hn::Store(result, d, tail);
    std::copy(tail, tail + std::max<int64_t>(valid - first, 0), out + first);
  }
}

// Computes a tile of kRows output rows x kCols vectors whose top-left input
// is `base` (in the padded plane), clamps it and stores the first `valid`
// outputs of each row at out, out + out_w, ... Accumulator i holds row
// i / kCols, vector i % kCols. Each weight is broadcast once per tile. The
// accumulators are named variables, not an array: scalable vectors (SVE)
// cannot be array elements, and unused ones cost nothing.
template <int kStride, int kRows, int kCols>
HWY_INLINE void Tile(D d, const DepthwiseShape& s, const float* HWY_RESTRICT base, int64_t padded_w,
                     const float* HWY_RESTRICT w, float bias, float* HWY_RESTRICT out, int64_t valid) {
  constexpr int kCount = kRows * kCols;
  static_assert(kCols >= 1 && kCols <= kMaxColumns && kRows >= 1 && kCount <= kMaxAccumulators);
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t step = lanes * kStride;
  const int64_t row_step = s.stride_h * padded_w;
  V acc0 = hn::Set(d, bias), acc1 = acc0, acc2 = acc0, acc3 = acc0, acc4 = acc0, acc5 = acc0, acc6 = acc0,
    acc7 = acc0;
#define MOTE_DEPTHWISE_FMA(i)                                                                                   \
  if constexpr (i < kCount) {                                                                                  \
    acc##i = hn::MulAdd(LoadColumns<kStride>(d, p + (i / kCols) * row_step + (i % kCols) * step), wv, acc##i); \
  }
  for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
    const float* row = base + kh * s.dilation_h * padded_w;
    for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
      const V wv = hn::Set(d, w[kh * s.kernel_w + kw]);
      const float* p = row + kw * s.dilation_w;
      MOTE_FOR_EACH_ACCUMULATOR(MOTE_DEPTHWISE_FMA)
    }
  }
#undef MOTE_DEPTHWISE_FMA
  const V lo = hn::Set(d, s.clamp_min);
  const V hi = hn::Set(d, s.clamp_max);
#define MOTE_DEPTHWISE_STORE(i) \
  if constexpr (i < kCount) StoreClamped(d, acc##i, lo, hi, out + (i / kCols) * s.out_w, (i % kCols) * lanes, valid);
  MOTE_FOR_EACH_ACCUMULATOR(MOTE_DEPTHWISE_STORE)
#undef MOTE_DEPTHWISE_STORE
}

// kRows output rows starting at `oh`, in tiles of up to kColumns vectors
// along the row; the last tile of a row takes what is left.
template <int kStride, int kRows, int kColumns>
HWY_INLINE void Rows(D d, const DepthwiseShape& s, const float* padded, int64_t padded_w, const float* w, float bias,
                     float* y, int64_t oh) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const float* base = padded + oh * s.stride_h * padded_w;
  float* out = y + oh * s.out_w;
  for (int64_t ow = 0; ow < s.out_w; ow += kColumns * lanes) {
    const int64_t valid = std::min<int64_t>(kColumns * lanes, s.out_w - ow);
    const float* in = base + ow * kStride;
    const int64_t vectors = (valid + lanes - 1) / lanes;
    if (vectors >= kColumns) {
      Tile<kStride, kRows, kColumns>(d, s, in, padded_w, w, bias, out + ow, valid);
    } else if (vectors == 3) {
      Tile<kStride, kRows, (kColumns > 3 ? 3 : kColumns)>(d, s, in, padded_w, w, bias, out + ow, valid);
    } else if (vectors == 2) {
      Tile<kStride, kRows, (kColumns > 2 ? 2 : kColumns)>(d, s, in, padded_w, w, bias, out + ow, valid);
    } else {
      Tile<kStride, kRows, 1>(d, s, in, padded_w, w, bias, out + ow, valid);
    }
  }
}

// The plane in groups of rows, shaped by the vectors a row needs: wide rows
// take 2 rows x 4 vectors per tile, a one-vector row 8 rows x 1 (with one
// row per tile, a 14-wide plane ran one dependent chain of multiply-adds).
template <int kStride, int kColumns>
void PlaneRows(const DepthwiseShape& s, const float* padded, int64_t padded_w, const float* w, float bias, float* y) {
  const D d;
  constexpr int kRows = kMaxAccumulators / kColumns;
  int64_t oh = 0;
  for (; oh + kRows <= s.out_h; oh += kRows) Rows<kStride, kRows, kColumns>(d, s, padded, padded_w, w, bias, y, oh);
  for (; oh < s.out_h; ++oh) Rows<kStride, 1, kColumns>(d, s, padded, padded_w, w, bias, y, oh);
}

template <int kStride>
void Plane(const DepthwiseShape& s, const float* padded, int64_t padded_w, const float* HWY_RESTRICT w, float bias,
           float* HWY_RESTRICT y) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(D()));
  switch (std::min<int64_t>((s.out_w + lanes - 1) / lanes, kMaxColumns)) {
    case 1: PlaneRows<kStride, 1>(s, padded, padded_w, w, bias, y); break;
    case 2: PlaneRows<kStride, 2>(s, padded, padded_w, w, bias, y); break;
    default: PlaneRows<kStride, kMaxColumns>(s, padded, padded_w, w, bias, y); break;
  }
}

// Copies the input plane into `scratch` with zeros around it: every load of
// Plane() then falls inside the buffer, including the last partial vector.
void DepthwisePlane(const DepthwiseShape& s, const float* x, const float* w, float bias, float* y,
                    std::vector<float>& scratch) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t out_w_vectors = (s.out_w + lanes - 1) / lanes * lanes;
  const int64_t padded_w =
      std::max(s.pad_left + s.in_w, out_w_vectors * s.stride_w + (s.kernel_w - 1) * s.dilation_w);
  const int64_t padded_h =
      std::max(s.pad_top + s.in_h, (s.out_h - 1) * s.stride_h + (s.kernel_h - 1) * s.dilation_h + 1);
  scratch.resize(static_cast<size_t>(padded_h * padded_w));
  float* padded = scratch.data();
  // Whole rows of padding, then input rows with their left and right margins.
  std::fill(padded, padded + s.pad_top * padded_w, 0.0f);
  for (int64_t r = 0; r < s.in_h; ++r) {
    float* row = padded + (s.pad_top + r) * padded_w;
    std::fill(row, row + s.pad_left, 0.0f);
    std::memcpy(row + s.pad_left, x + r * s.in_w, static_cast<size_t>(s.in_w) * sizeof(float));
    std::fill(row + s.pad_left + s.in_w, row + padded_w, 0.0f);
  }
  std::fill(padded + (s.pad_top + s.in_h) * padded_w, padded + padded_h * padded_w, 0.0f);

  if (s.stride_w == 1) {
    Plane<1>(s, padded, padded_w, w, bias, y);
  } else {
    Plane<2>(s, padded, padded_w, w, bias, y);
  }
}

// Channel-blocked path: `lanes` channels side by side, one vector holding
// the same pixel of each, so every lane does useful work however narrow the
// plane. Per block the input planes are transposed into a zero-padded
// [padded_h][padded_w][lanes] buffer and the weights into [taps][lanes]; the
// outputs are computed eight pixels at a time and transposed back.
// Lanes past the last channel compute zeros that are never stored.
size_t DepthwiseLanes() { return hn::Lanes(D()); }

// kCount output pixels from flat index q on, in the blocked layout: the
// pixels' input corners are found once, then every tap is one weight vector
// and one load per pixel.
template <int kCount>
HWY_INLINE void BlockedTile(D d, const DepthwiseShape& s, const float* HWY_RESTRICT padded, int64_t padded_w,
                            const float* HWY_RESTRICT weights, const float* HWY_RESTRICT biases, int64_t q,
                            float* HWY_RESTRICT blocked_out) {
  static_assert(kCount >= 1 && kCount <= kMaxAccumulators);
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t corner[kCount];
  for (int i = 0; i < kCount; ++i) {
    const int64_t oh = (q + i) / s.out_w, ow = (q + i) % s.out_w;
    corner[i] = (oh * s.stride_h * padded_w + ow * s.stride_w) * lanes;
  }
  V acc0 = hn::LoadU(d, biases), acc1 = acc0, acc2 = acc0, acc3 = acc0, acc4 = acc0, acc5 = acc0, acc6 = acc0,
    acc7 = acc0;
#define MOTE_DEPTHWISE_FMA(i) \
  if constexpr (i < kCount) acc##i = hn::MulAdd(hn::LoadU(d, tap + corner[i]), wv, acc##i);
  for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
    for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
      const V wv = hn::LoadU(d, weights + (kh * s.kernel_w + kw) * lanes);
      const float* tap = padded + (kh * s.dilation_h * padded_w + kw * s.dilation_w) * lanes;
      MOTE_FOR_EACH_ACCUMULATOR(MOTE_DEPTHWISE_FMA)
    }
  }
#undef MOTE_DEPTHWISE_FMA
  const V lo = hn::Set(d, s.clamp_min);
  const V hi = hn::Set(d, s.clamp_max);
  float* out = blocked_out + q * lanes;
#define MOTE_DEPTHWISE_STORE(i) \
  if constexpr (i < kCount) hn::StoreU(hn::Min(hn::Max(acc##i, lo), hi), d, out + i * lanes);
  MOTE_FOR_EACH_ACCUMULATOR(MOTE_DEPTHWISE_STORE)
#undef MOTE_DEPTHWISE_STORE
}

void DepthwiseChannelBlock(const DepthwiseShape& s, const float* x, int64_t in_plane, int64_t channels, const float* w,
                           const float* bias, float* y, int64_t out_plane, std::vector<float>& scratch) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t taps = s.kernel_h * s.kernel_w;
  const int64_t padded_w =
      std::max(s.pad_left + s.in_w, (s.out_w - 1) * s.stride_w + (s.kernel_w - 1) * s.dilation_w + 1);
  const int64_t padded_h =
      std::max(s.pad_top + s.in_h, (s.out_h - 1) * s.stride_h + (s.kernel_h - 1) * s.dilation_h + 1);
  const int64_t out_pixels = s.out_h * s.out_w;
  scratch.resize(static_cast<size_t>((padded_h * padded_w + taps + 1 + out_pixels) * lanes));
  float* HWY_RESTRICT padded = scratch.data();
  float* HWY_RESTRICT weights = padded + padded_h * padded_w * lanes;
  float* HWY_RESTRICT biases = weights + taps * lanes;
  float* HWY_RESTRICT blocked_out = biases + lanes;

  // Row by row, so the transposed row stays in L1 while each channel's part
  // of it is written; the padding rows and margins are zeroed, lanes past the
  // last channel too.
  std::fill(padded, padded + s.pad_top * padded_w * lanes, 0.0f);
  for (int64_t r = 0; r < s.in_h; ++r) {
    float* dst = padded + (s.pad_top + r) * padded_w * lanes;
    std::fill(dst, dst + s.pad_left * lanes, 0.0f);
    std::fill(dst + (s.pad_left + s.in_w) * lanes, dst + padded_w * lanes, 0.0f);
    dst += s.pad_left * lanes;
    if (channels < lanes) std::fill(dst, dst + s.in_w * lanes, 0.0f);
    for (int64_t c = 0; c < channels; ++c) {
      const float* src = x + c * in_plane + r * s.in_w;
      for (int64_t col = 0; col < s.in_w; ++col) dst[col * lanes + c] = src[col];
    }
  }
  std::fill(padded + (s.pad_top + s.in_h) * padded_w * lanes, padded + padded_h * padded_w * lanes, 0.0f);
  std::fill(weights, blocked_out, 0.0f);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t t = 0; t < taps; ++t) weights[t * lanes + c] = w[c * taps + t];
    biases[c] = bias ? bias[c] : 0.0f;
  }

  // Output pixels in row-major order, kMaxAccumulators at a time whatever
  // the row width (a 7-wide plane has no 8-pixel run in a row).
  int64_t q = 0;
  for (; q + kMaxAccumulators <= out_pixels; q += kMaxAccumulators) {
    BlockedTile<kMaxAccumulators>(d, s, padded, padded_w, weights, biases, q, blocked_out);
  }
  for (; q < out_pixels; ++q) BlockedTile<1>(d, s, padded, padded_w, weights, biases, q, blocked_out);

  for (int64_t oh = 0; oh < s.out_h; ++oh) {
    const float* src = blocked_out + oh * s.out_w * lanes;
    for (int64_t c = 0; c < channels; ++c) {
      float* dst = y + c * out_plane + oh * s.out_w;
      for (int64_t ow = 0; ow < s.out_w; ++ow) dst[ow] = src[ow * lanes + c];
    }
  }
}

#undef MOTE_FOR_EACH_ACCUMULATOR

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu {

HWY_EXPORT(DepthwisePlane);
HWY_EXPORT(DepthwiseLanes);
HWY_EXPORT(DepthwiseChannelBlock);

void depthwise_plane(const DepthwiseShape& s, const float* x, const float* w, float bias, float* y,
                     std::vector<float>& scratch) {
  HWY_DYNAMIC_DISPATCH(DepthwisePlane)(s, x, w, bias, y, scratch);
}

int64_t depthwise_block_channels() { return static_cast<int64_t>(HWY_DYNAMIC_DISPATCH(DepthwiseLanes)()); }

// A row that fills at most half a vector wastes the other half in the row
// path (a 7-wide row fills 7 of 16 lanes on AVX-512). Measured at 1 thread
// (AVX-512), row path -> blocks: MobileNetV2's 7x7 layers 0.12 -> 0.07 ms,
// EfficientNet-B0's 7x7 5x5 layers 0.30 -> 0.16 ms; at 14x14 the two tie
// (0.091 / 0.089 ms) and from 28x28 on the transposes cost more than the
// lanes save (0.089 -> 0.182 ms).
bool prefers_channel_blocks(const DepthwiseShape& s) { return s.out_w * 2 <= depthwise_block_channels(); }

void depthwise_channel_block(const DepthwiseShape& s, const float* x, int64_t in_plane, int64_t channels,
                             const float* w, const float* bias, float* y, int64_t out_plane,
                             std::vector<float>& scratch) {
  HWY_DYNAMIC_DISPATCH(DepthwiseChannelBlock)(s, x, in_plane, channels, w, bias, y, out_plane, scratch);
}

}  // namespace mote::cpu
#endif  // HWY_ONCE
