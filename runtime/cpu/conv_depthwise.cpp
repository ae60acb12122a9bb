// SIMD bodies of conv_depthwise.hpp, compiled once per instruction set by
// Highway's foreach_target.h; the HWY_ONCE section picks one at run time.
//
// Row path: the input plane is copied once into a zero-padded buffer, so the
// main loop is plain vector loads with no bounds checks, computing tiles of
// eight output vectors: 2 rows x 4 vectors on wide planes, down to 8 rows x 1
// vector on narrow ones. (Tiles of four vectors along one row left a 14-wide
// plane one dependent chain of multiply-adds: MobileNetV2's 14x14 layers
// 0.151 -> 0.091 ms at 1 thread.) Aligned per-tap row copies measured no
// faster on AVX-512. 3x3 kernels take FixedPlane, whose tiles load each
// input row once for all the output rows that read it.
//
// With a width stride of 2 each padded row is stored split by parity
// (padded_plane-inl.h), so a tap reads consecutive floats there too.
//
// Measured together (FixedPlane, the split rows, vector row copies),
// MobileNetV2 at 1 thread, per-op times, best of 6 alternating runs: its
// 3x3 stride-1 layers 2.03 -> 1.80 ms, stride-2 ones 0.97 -> 0.87 ms.
//
// Scalable vector targets (SVE, RVV) are not compiled: FixedTile keeps its
// accumulators in arrays of vectors, which sizeless types do not allow. The
// NEON code serves those CPUs.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_SSE4 | HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/conv_depthwise.cpp"
#include "runtime/cpu/conv_depthwise.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

#include "hwy/foreach_target.h"  // must come before highway.h
#include "hwy/highway.h"
#include "runtime/cpu/padded_plane-inl.h"
#include "runtime/cpu/simd_clamp-inl.h"
#include "runtime/cpu/simd_store-inl.h"
#include "runtime/cpu/simd_tile_activation-inl.h"
#include "runtime/cpu/transpose_simd.hpp"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_HAVE_SCALABLE
#error "conv_depthwise.cpp needs fixed-size vectors: disable scalable targets"
#endif

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;
using padded_plane::ColumnOffset;
using padded_plane::Unroll;

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
  const V result = simd_clamp::HWY_NAMESPACE::ClampKeepingNaN(acc, lo, hi);
  if (first + lanes <= valid) {
    hn::StoreU(result, d, out + first);
    return;
  }
  // The partial last vector: nothing may be written past the row, which can
  // be another thread's plane.
  simd_store::HWY_NAMESPACE::StoreFirstN(d, result, static_cast<size_t>(std::max<int64_t>(valid - first, 0)),
                                         out + first);
}

// Computes a tile of kRows output rows x kCols vectors whose top-left input
// is `base` (in the padded plane, whose rows are `padded_w` floats apart and
// split by parity at `odd_half` for kStride 2), clamps it and stores the first
// `valid` outputs of each row at out, out + out_w, ... Accumulator i holds row
// i / kCols, vector i % kCols. Each weight is broadcast once per tile. The
// accumulators are named variables, unused ones costing nothing.
template <int kStride, int kRows, int kCols>
HWY_INLINE void Tile(D d, const PlaneConvShape& s, const float* HWY_RESTRICT base, int64_t padded_w, int64_t odd_half,
                     const float* HWY_RESTRICT w, float bias, float* HWY_RESTRICT out, int64_t valid) {
  constexpr int kCount = kRows * kCols;
  static_assert(kCols >= 1 && kCols <= kMaxColumns && kRows >= 1 && kCount <= kMaxAccumulators);
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t row_step = s.stride_h * padded_w;
  V acc0 = hn::Set(d, bias), acc1 = acc0, acc2 = acc0, acc3 = acc0, acc4 = acc0, acc5 = acc0, acc6 = acc0,
    acc7 = acc0;
#define MOTE_DEPTHWISE_FMA(i)                                                                        \
  if constexpr (i < kCount) {                                                                        \
    acc##i = hn::MulAdd(hn::LoadU(d, p + (i / kCols) * row_step + (i % kCols) * lanes), wv, acc##i); \
  }
  for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
    const float* row = base + kh * s.dilation_h * padded_w;
    for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
      const V wv = hn::Set(d, w[kh * s.kernel_w + kw]);
      const float* p = row + ColumnOffset<kStride>(kw * s.dilation_w, odd_half);
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
HWY_INLINE void Rows(D d, const PlaneConvShape& s, const float* padded, int64_t padded_w, int64_t odd_half,
                     const float* w, float bias, float* y, int64_t oh) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const float* base = padded + oh * s.stride_h * padded_w;
  float* out = y + oh * s.out_w;
  for (int64_t ow = 0; ow < s.out_w; ow += kColumns * lanes) {
    const int64_t valid = std::min<int64_t>(kColumns * lanes, s.out_w - ow);
    const float* in = base + ow;  // output column ow reads from input column ow * kStride
    const int64_t vectors = (valid + lanes - 1) / lanes;
    if (vectors >= kColumns) {
      Tile<kStride, kRows, kColumns>(d, s, in, padded_w, odd_half, w, bias, out + ow, valid);
    } else if (vectors == 3) {
      Tile<kStride, kRows, (kColumns > 3 ? 3 : kColumns)>(d, s, in, padded_w, odd_half, w, bias, out + ow, valid);
    } else if (vectors == 2) {
      Tile<kStride, kRows, (kColumns > 2 ? 2 : kColumns)>(d, s, in, padded_w, odd_half, w, bias, out + ow, valid);
    } else {
      Tile<kStride, kRows, 1>(d, s, in, padded_w, odd_half, w, bias, out + ow, valid);
    }
  }
}

// The plane in groups of rows, shaped by the vectors a row needs: wide rows
// take 2 rows x 4 vectors per tile, a one-vector row 8 rows x 1 (with one
// row per tile, a 14-wide plane ran one dependent chain of multiply-adds).
template <int kStride, int kColumns>
void PlaneRows(const PlaneConvShape& s, const float* padded, int64_t padded_w, int64_t odd_half, const float* w,
               float bias, float* y) {
  const D d;
  constexpr int kRows = kMaxAccumulators / kColumns;
  int64_t oh = 0;
  for (; oh + kRows <= s.out_h; oh += kRows)
    Rows<kStride, kRows, kColumns>(d, s, padded, padded_w, odd_half, w, bias, y, oh);
  // The rows left in fewer but still several chains: one row of one vector
  // is a single chain of dependent multiply-adds (6 of a 14x14 plane's 14).
  if constexpr (kRows >= 4) {
    for (; oh + kRows / 2 <= s.out_h; oh += kRows / 2)
      Rows<kStride, kRows / 2, kColumns>(d, s, padded, padded_w, odd_half, w, bias, y, oh);
  }
  if constexpr (kRows >= 8) {
    for (; oh + 2 <= s.out_h; oh += 2) Rows<kStride, 2, kColumns>(d, s, padded, padded_w, odd_half, w, bias, y, oh);
  }
  for (; oh < s.out_h; ++oh) Rows<kStride, 1, kColumns>(d, s, padded, padded_w, odd_half, w, bias, y, oh);
}

template <int kStride>
void Plane(const PlaneConvShape& s, const float* padded, int64_t padded_w, int64_t odd_half,
           const float* HWY_RESTRICT w, float bias, float* HWY_RESTRICT y) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(D()));
  switch (std::min<int64_t>((s.out_w + lanes - 1) / lanes, kMaxColumns)) {
    case 1: PlaneRows<kStride, 1>(s, padded, padded_w, odd_half, w, bias, y); break;
    case 2: PlaneRows<kStride, 2>(s, padded, padded_w, odd_half, w, bias, y); break;
    default: PlaneRows<kStride, kMaxColumns>(s, padded, padded_w, odd_half, w, bias, y); break;
  }
}

// kK x kK kernels, undilated, with equal strides: the taps are
// known at compile time, so a tile loads each input row it needs once and
// feeds it to every output row of the tile that reads it (with 4 output rows
// and a 3x3 kernel, 6 row loads instead of 12), and the weights are broadcast
// once per plane, not once per tile. The generic Tile above issues one
// unaligned load per multiply-add, which left the load ports, not the FMA
// units, the limit.
//
// kRows output rows x kCols vectors from the padded input at `base`, whose
// rows are `padded_w` apart; `weights` holds the kK x kK taps broadcast.
template <int kStride, int kK, int kRows, int kCols>
HWY_INLINE void FixedTile(D d, const float* HWY_RESTRICT base, int64_t padded_w, int64_t odd_half,
                          const V* HWY_RESTRICT weights, V bias, V lo, V hi, float* HWY_RESTRICT out, int64_t out_w,
                          int64_t valid) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  V acc[kRows * kCols];
  for (V& a : acc) a = bias;
  Unroll<(kRows - 1) * kStride + kK>([&](auto in_row) HWY_ATTR {
    const float* row = base + in_row() * padded_w;
    Unroll<kK>([&](auto kw) HWY_ATTR {
      const float* p = row + ColumnOffset<kStride>(kw(), odd_half);
      V x[kCols];
      Unroll<kCols>([&](auto c) HWY_ATTR { x[c()] = hn::LoadU(d, p + c() * lanes); });
      Unroll<kRows>([&](auto r) HWY_ATTR {
        constexpr int kh = decltype(in_row)::value - decltype(r)::value * kStride;
        if constexpr (kh >= 0 && kh < kK) {
          const V w = weights[kh * kK + kw()];
          Unroll<kCols>([&](auto c)
                            HWY_ATTR { acc[r() * kCols + c()] = hn::MulAdd(x[c()], w, acc[r() * kCols + c()]); });
        }
      });
    });
  });
  Unroll<kRows * kCols>([&](auto i) HWY_ATTR {
    StoreClamped(d, acc[i()], lo, hi, out + i() / kCols * out_w, i() % kCols * lanes, valid);
  });
}

// kRows output rows from `oh` on, kCols vectors at a time; a last partial
// group of vectors takes one at a time.
template <int kStride, int kK, int kRows, int kCols>
HWY_INLINE void FixedRows(D d, const PlaneConvShape& s, const float* padded, int64_t padded_w, int64_t odd_half,
                          const V* weights, V bias, V lo, V hi, float* y, int64_t oh) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const float* base = padded + oh * kStride * padded_w;
  float* out = y + oh * s.out_w;
  int64_t ow = 0;
  for (; ow + (kCols - 1) * lanes < s.out_w; ow += kCols * lanes) {
    FixedTile<kStride, kK, kRows, kCols>(d, base + ow, padded_w, odd_half, weights, bias, lo, hi, out + ow, s.out_w,
                                         std::min<int64_t>(kCols * lanes, s.out_w - ow));
  }
  for (; ow < s.out_w; ow += lanes) {
    FixedTile<kStride, kK, kRows, 1>(d, base + ow, padded_w, odd_half, weights, bias, lo, hi, out + ow, s.out_w,
                                     std::min<int64_t>(lanes, s.out_w - ow));
  }
}

// The plane in tiles of 8 accumulators: 4 rows x 2 vectors, or 8 rows x 1
// where a row is one vector wide; the rows left two and then one at a time.
// Flattened: the unrolling lambdas must be inlined for the accumulators to
// stay in registers.
template <int kStride, int kK>
HWY_FLATTEN void FixedPlane(const PlaneConvShape& s, const float* padded, int64_t padded_w, int64_t odd_half,
                            const float* HWY_RESTRICT w, float bias, float* HWY_RESTRICT y) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  V weights[kK * kK];
  for (int i = 0; i < kK * kK; ++i) weights[i] = hn::Set(d, w[i]);
  const V b = hn::Set(d, bias), lo = hn::Set(d, s.clamp_min), hi = hn::Set(d, s.clamp_max);
  int64_t oh = 0;
  if (s.out_w > lanes) {
    for (; oh + 4 <= s.out_h; oh += 4)
      FixedRows<kStride, kK, 4, 2>(d, s, padded, padded_w, odd_half, weights, b, lo, hi, y, oh);
  } else {
    for (; oh + 8 <= s.out_h; oh += 8)
      FixedRows<kStride, kK, 8, 1>(d, s, padded, padded_w, odd_half, weights, b, lo, hi, y, oh);
  }
  for (; oh + 2 <= s.out_h; oh += 2)
    FixedRows<kStride, kK, 2, 2>(d, s, padded, padded_w, odd_half, weights, b, lo, hi, y, oh);
  for (; oh < s.out_h; ++oh)
    FixedRows<kStride, kK, 1, 2>(d, s, padded, padded_w, odd_half, weights, b, lo, hi, y, oh);
}

// Whether FixedPlane takes this shape: 3x3 only. 5x5 ran no faster in
// EfficientNet-B0 (1.94 -> 1.91 ms over its stride-1 layers) and doubled
// this file's compile time.
bool TakesFixedPlane(const PlaneConvShape& s) {
  return s.kernel_h == 3 && s.kernel_w == 3 && s.dilation_h == 1 && s.dilation_w == 1 && s.stride_h == s.stride_w;
}

// Copies the input plane into `scratch` with zeros around it: every load of
// Plane() then falls inside the buffer, including the last partial vector.
// The zeros stay between calls on one geometry (the planes of a layer on one
// thread), so only the first call writes them: stores, many of them split
// across cache lines, were what limited the row copies. MobileNetV2-shaped
// layers alone at 1 thread: 72 channels 56x56 stride 2 0.065 -> 0.055 ms,
// 144 channels 56x56 stride 1 0.24 -> 0.21 ms.
template <class TS>
void DepthwisePlaneFrom(const PlaneConvShape& s, const TS* x, int32_t zero, const float* w, float bias, float* y,
                        DepthwiseScratch& scratch) {
  const padded_plane::Layout l = padded_plane::PaddedLayout(s);
  // Zero when unknown: no geometry has a width of 0.
  const std::array<int64_t, 8> geometry = {l.height, l.width,   l.odd_half, s.in_h,
                                           s.in_w,   s.pad_top, s.pad_left, s.stride_w};
  const bool zeroed = scratch.zeroed_for == geometry;
  scratch.buffer.resize(static_cast<size_t>(l.floats()));
  float* padded = scratch.buffer.data();
  padded_plane::PadRows(s, l, x, zero, 0, s.in_h, zeroed, padded);
  scratch.zeroed_for = geometry;

  const bool fixed = TakesFixedPlane(s);
  if (s.stride_w == 1) {
    (fixed ? FixedPlane<1, 3> : Plane<1>)(s, padded, l.width, l.odd_half, w, bias, y);
  } else {
    (fixed ? FixedPlane<2, 3> : Plane<2>)(s, padded, l.width, l.odd_half, w, bias, y);
  }
}

void DepthwisePlane(const PlaneConvShape& s, const float* x, const float* w, float bias, float* y,
                    DepthwiseScratch& scratch) {
  DepthwisePlaneFrom(s, x, 0, w, bias, y, scratch);
}

void DepthwisePlane8(const PlaneConvShape& s, const void* x, bool is_signed, int32_t zero, const float* w, float* y,
                     DepthwiseScratch& scratch) {
  if (is_signed) {
    DepthwisePlaneFrom(s, static_cast<const int8_t*>(x), zero, w, 0.0f, y, scratch);
  } else {
    DepthwisePlaneFrom(s, static_cast<const uint8_t*>(x), zero, w, 0.0f, y, scratch);
  }
}

// Channel-blocked path: `lanes` channels side by side, one vector holding
// the same pixel of each, so every lane does useful work however narrow the
// plane. Per block the weights are laid out as [taps][lanes]; a blocked
// input is read in place by the row tiles (RowSource), while NCHW input
// planes (and any input of the flat path) are transposed into a zero-padded
// [padded_h][padded_w][lanes] buffer. The outputs are computed a row tile (or
// eight pixels) at a time and, for an NCHW output, transposed back. The
// transposes go through transpose_simd (4x4 vector blocks): element by
// element they took 45 % of the path's time, and MobileNetV2's 7x7 depthwise
// layers went 0.08-0.12 -> 0.055-0.068 ms at 1 thread with them (EPYC).
// Lanes past the last channel compute zeros that are never stored.
size_t DepthwiseLanes() { return hn::Lanes(D()); }

// kCount output pixels from flat index q on, in the blocked layout: the
// pixels' input corners are found once, then every tap is one weight vector
// and one load per pixel.
template <int kCount>
HWY_INLINE void BlockedTile(D d, const PlaneConvShape& s, const float* HWY_RESTRICT padded, int64_t padded_w,
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
#define MOTE_DEPTHWISE_STORE(i)                                                                  \
  if constexpr (i < kCount)                                                                      \
    hn::StoreU(simd_tile_activation::HWY_NAMESPACE::Activate(                                    \
                   d, s.activation, simd_clamp::HWY_NAMESPACE::ClampKeepingNaN(acc##i, lo, hi)), \
               d, out + i * lanes);
  MOTE_FOR_EACH_ACCUMULATOR(MOTE_DEPTHWISE_STORE)
#undef MOTE_DEPTHWISE_STORE
}

// Where a row tile reads its input: input row r (r = oh * kStride + kh - top)
// starts at rows + r * row_floats, its column c (c = ow * kStride + kw -
// left) is `lanes` floats further per column. Rows outside [0, height) read
// `zero_row`; columns outside [0, width) are zeros, not loaded (checked
// tiles only: a tile is checked where any of its columns falls outside).
// A padded copy is the source with top = left = 0 and nothing outside; a
// blocked input is read in place with the layer's padding as top and left.
struct RowSource {
  const float* rows;
  int64_t row_floats;
  int64_t height, width;
  int64_t top, left;
  const float* zero_row;  // width * lanes zeros, or null where no row falls outside
};

// kK x kK kernels, undilated, equal strides kStride: kCount outputs of one
// output row, whose windows start at input column first_column of the kK
// input rows `rows` (at their column 0). Each input vector a tile row needs is
// loaded once for all the taps that read it ((kCount - 1) * kStride + kK
// loads per kernel row instead of kCount * kK): BlockedTile's load per
// multiply-add left MobileNetV2's 56x56 layers load-bound.
// Rows whose width is a multiple of 7 (the 7-, 14- and 28-wide planes of
// ImageNet networks at 224) take tiles of 7 where there are 32 registers
// (a 5x5 stride-2 tile holds 7 sums and 17 inputs): no odd outputs left at
// the end of each row. At 1 thread (AVX-512, mote-bench --per-op), layers
// that ran in BlockedTiles: EfficientNet-B0's 14x14 5x5 0.122 -> 0.077 ms,
// 7x7 5x5 0.064 -> 0.045, 14x14 3x3 0.051 -> 0.036; MobileNetV2's 14x14
// 0.020 -> 0.015; and its 28x28, 8-tiles and a tile of 4, 0.029 -> 0.028.
// 7x7 kernels at stride 1 (ConvNeXt): 96 channels 14x14 0.035 -> 0.026 ms,
// 384 channels 7x7 0.045 -> 0.036.
#if HWY_TARGET == HWY_AVX2
constexpr int kRowTileOutputs = 4;  // 16 registers
constexpr bool kRowTilesOfSeven = false;
#else
constexpr int kRowTileOutputs = 8;
constexpr bool kRowTilesOfSeven = true;
#endif

template <int kStride, int kK, int kCount, bool kChecked>
HWY_INLINE void BlockedRowTile(D d, const float* const* rows, int64_t first_column, int64_t width,
                               const float* HWY_RESTRICT weights, V bias, V lo, V hi, TileActivation activation,
                               float* HWY_RESTRICT out) {
  constexpr int kInputs = (kCount - 1) * kStride + kK;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  V acc[kCount];
  for (V& a : acc) a = bias;
  Unroll<kK>([&](auto kh) HWY_ATTR {
    V x[kInputs];
    Unroll<kInputs>([&](auto j) HWY_ATTR {
      // The address is formed only for columns inside the row.
      const int64_t column = first_column + j();
      x[j()] = !kChecked || (column >= 0 && column < width) ? hn::LoadU(d, rows[kh()] + column * lanes) : hn::Zero(d);
    });
    Unroll<kK>([&](auto kw) HWY_ATTR {
      const V w = hn::LoadU(d, weights + (kh() * kK + kw()) * lanes);
      Unroll<kCount>([&](auto i) HWY_ATTR { acc[i()] = hn::MulAdd(x[i() * kStride + kw()], w, acc[i()]); });
    });
  });
  Unroll<kCount>([&](auto i) HWY_ATTR { acc[i()] = simd_clamp::HWY_NAMESPACE::ClampKeepingNaN(acc[i()], lo, hi); });
  if (activation != TileActivation::kNone) {
    Unroll<kCount>(
        [&](auto i) HWY_ATTR { acc[i()] = simd_tile_activation::HWY_NAMESPACE::Activate(d, activation, acc[i()]); });
  }
  Unroll<kCount>([&](auto i) HWY_ATTR { hn::StoreU(acc[i()], d, out + i() * lanes); });
}

// kCount outputs from column ow on, checked where they read outside the
// source's columns.
template <int kStride, int kK, int kCount>
HWY_INLINE void BlockedRowRun(D d, const RowSource& src, const float* const* rows, int64_t ow,
                              const float* HWY_RESTRICT weights, V bias, V lo, V hi, TileActivation activation,
                              float* HWY_RESTRICT out) {
  const int64_t first = ow * kStride - src.left, last = first + (kCount - 1) * kStride + kK - 1;
  if (first >= 0 && last < src.width) {
    BlockedRowTile<kStride, kK, kCount, false>(d, rows, first, src.width, weights, bias, lo, hi, activation, out);
  } else {
    BlockedRowTile<kStride, kK, kCount, true>(d, rows, first, src.width, weights, bias, lo, hi, activation, out);
  }
}

// Output rows [0, s.out_h) in BlockedRowTiles of kCount outputs, each row's
// last few outputs (fewer than a tile) in tiles of 4, 2 and 1.
template <int kStride, int kK, int kCount>
HWY_FLATTEN void BlockedRows(D d, const PlaneConvShape& s, const RowSource& src, const float* weights,
                             const float* biases, float* blocked_out) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const V bias = hn::LoadU(d, biases);
  const V lo = hn::Set(d, s.clamp_min), hi = hn::Set(d, s.clamp_max);
  for (int64_t oh = 0; oh < s.out_h; ++oh) {
    const float* rows[kK];
    for (int64_t kh = 0; kh < kK; ++kh) {
      const int64_t r = oh * kStride + kh - src.top;
      rows[kh] = r >= 0 && r < src.height ? src.rows + r * src.row_floats : src.zero_row;
    }
    float* out = blocked_out + oh * s.out_w * lanes;
    int64_t ow = 0;
    for (; ow + kCount <= s.out_w; ow += kCount) {
      BlockedRowRun<kStride, kK, kCount>(d, src, rows, ow, weights, bias, lo, hi, s.activation, out + ow * lanes);
    }
    for (; ow + 4 <= s.out_w; ow += 4) {
      BlockedRowRun<kStride, kK, 4>(d, src, rows, ow, weights, bias, lo, hi, s.activation, out + ow * lanes);
    }
    for (; ow + 2 <= s.out_w; ow += 2) {
      BlockedRowRun<kStride, kK, 2>(d, src, rows, ow, weights, bias, lo, hi, s.activation, out + ow * lanes);
    }
    for (; ow < s.out_w; ++ow) {
      BlockedRowRun<kStride, kK, 1>(d, src, rows, ow, weights, bias, lo, hi, s.activation, out + ow * lanes);
    }
  }
}

// Where the padded copy of a whole plane block (an NCHW input's, transposed;
// blocked inputs are read in place) would outgrow this, the row tiles run
// over bands of output rows, each band's input rows copied in turn (a few
// rows copied twice): a 112x112 block of 16 channels is 0.8 MB, and its
// copy, read back by the tiles, went through L3. MobileNetV2 at 1 thread
// (AVX-512, best of 4 runs), when blocked inputs were copied too: its first
// depthwise layer (112x112) 0.135 -> 0.089 ms, 112x112 stride 2 0.160 ->
// 0.127, 56x56 0.119 -> 0.078. Bands of 48 KiB measured the same.
constexpr int64_t kBandBytes = 128 * 1024;

void DepthwiseChannelBlock(const PlaneConvShape& s, const float* x, bool x_blocked, int64_t in_plane,
                           int64_t channels, const float* w, const float* bias, float* y, bool y_blocked,
                           int64_t out_plane, DepthwiseScratch& scratch) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t taps = s.kernel_h * s.kernel_w;
  const int64_t padded_w =
      std::max(s.pad_left + s.in_w, (s.out_w - 1) * s.stride_w + (s.kernel_w - 1) * s.dilation_w + 1);
  const int64_t padded_h =
      std::max(s.pad_top + s.in_h, (s.out_h - 1) * s.stride_h + (s.kernel_h - 1) * s.dilation_h + 1);
  const int64_t out_pixels = s.out_h * s.out_w;
  const int64_t row_floats = padded_w * lanes;

  // Rows of at least three row tiles or of tiles of 7, with the kernels those
  // are made for; otherwise output pixels in row-major order, kMaxAccumulators
  // at a time whatever the row width (a 7-wide plane has no 8-pixel run in a
  // row). Measured at 1 thread (AVX-512), MobileNetV2's blocked depthwise
  // layers: 56x56 0.150 -> 0.117 ms, 112x112 stride 2 0.21 -> 0.17; at 14x14
  // one row tile and six odd outputs per row ran 0.031 -> 0.050.
  const bool sevens = kRowTilesOfSeven && s.out_w % 7 == 0 && s.out_w % kRowTileOutputs != 0;
  const bool square = s.kernel_h == s.kernel_w && s.stride_h == s.stride_w && s.dilation_h == 1 &&
                      s.dilation_w == 1 && (s.out_w >= 3 * kRowTileOutputs || sevens);
  const bool row_tiles = square && (((s.kernel_h == 3 || s.kernel_h == 5) && (s.stride_h == 1 || s.stride_h == 2)) ||
                                    (s.kernel_h == 7 && s.stride_h == 1));
  // A blocked input is read in place by the row tiles (RowSource), its
  // padding by checked tiles at the row ends and a zero row: its padded
  // copy (a memcpy per row and the margins' zeros) cost about a third of
  // these layers. mote-bench, eight alternating rounds, medians, 1 / 2
  // threads: MobileNetV2 7.21 -> 6.93 / 3.97 -> 3.82 ms, MobileNetV3-Small
  // 1.745 -> 1.619 / 0.991 -> 0.939, EfficientNet-B0 11.82 -> 11.39 / 6.57
  // -> 6.35 (four rounds).
  const bool in_place = row_tiles && x_blocked;
  // Output rows per band, and the padded rows a band reads.
  int64_t band = s.out_h;
  if (row_tiles && !in_place && padded_h * row_floats * static_cast<int64_t>(sizeof(float)) > kBandBytes) {
    const int64_t rows_fitting = kBandBytes / (row_floats * static_cast<int64_t>(sizeof(float)));
    band = std::clamp<int64_t>((rows_fitting - s.kernel_h) / s.stride_h + 1, 1, s.out_h);
  }
  const int64_t band_rows = band == s.out_h ? padded_h : (band - 1) * s.stride_h + s.kernel_h;
  // In place, the buffer's first row is the zero row (an input row's floats).
  const int64_t buffer_rows_floats = in_place ? s.in_w * lanes : band_rows * row_floats;

  scratch.zeroed_for = {};  // its layout is not the row path's
  scratch.buffer.resize(static_cast<size_t>(buffer_rows_floats + (taps + 1 + (y_blocked ? 0 : out_pixels)) * lanes));
  float* HWY_RESTRICT padded = scratch.buffer.data();
  float* HWY_RESTRICT weights = padded + buffer_rows_floats;
  float* HWY_RESTRICT biases = weights + taps * lanes;
  float* HWY_RESTRICT blocked_out = y_blocked ? y : biases + lanes;
  std::fill(weights, biases + lanes, 0.0f);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t t = 0; t < taps; ++t) weights[t * lanes + c] = w[c * taps + t];
    biases[c] = bias ? bias[c] : 0.0f;
  }

  // Padded rows [first, first + count) into `padded`, row by row, so the
  // transposed row stays in L1 while each channel's part of it is written;
  // the padding rows and margins are zeroed, lanes past the last channel too.
  const auto fill_rows = [&](int64_t first, int64_t count) {
    for (int64_t j = 0; j < count; ++j) {
      float* dst = padded + j * row_floats;
      const int64_t r = first + j - s.pad_top;  // the input row
      if (r < 0 || r >= s.in_h) {
        std::fill(dst, dst + row_floats, 0.0f);
        continue;
      }
      std::fill(dst, dst + s.pad_left * lanes, 0.0f);
      std::fill(dst + (s.pad_left + s.in_w) * lanes, dst + row_floats, 0.0f);
      dst += s.pad_left * lanes;
      if (x_blocked) {
        std::memcpy(dst, x + r * s.in_w * lanes, static_cast<size_t>(s.in_w * lanes) * sizeof(float));
        continue;
      }
      if (channels < lanes) std::fill(dst, dst + s.in_w * lanes, 0.0f);
      simd::transpose_4byte(x + r * s.in_w, in_plane, channels, s.in_w, dst, lanes);
    }
  };

  if (row_tiles) {
    using Rows = decltype(&BlockedRows<1, 3, kRowTileOutputs>);
    // [stride 2][3x3, 5x5, 7x7][tiles of 7]; 7x7 at stride 1 only (ConvNeXt's
    // layers; a stride-2 tile would hold 21 inputs beside its 8 sums).
    static constexpr Rows kRows[2][3][2] = {
        {{BlockedRows<1, 3, kRowTileOutputs>, BlockedRows<1, 3, 7>},
         {BlockedRows<1, 5, kRowTileOutputs>, BlockedRows<1, 5, 7>},
         {BlockedRows<1, 7, kRowTileOutputs>, BlockedRows<1, 7, 7>}},
        {{BlockedRows<2, 3, kRowTileOutputs>, BlockedRows<2, 3, 7>},
         {BlockedRows<2, 5, kRowTileOutputs>, BlockedRows<2, 5, 7>},
         {nullptr, nullptr}},
    };
    const Rows rows = kRows[s.stride_h == 2][s.kernel_h / 2 - 1][sevens];
    if (in_place) {
      float* zero_row = padded;  // the buffer's first row (buffer_rows_floats)
      std::fill(zero_row, zero_row + buffer_rows_floats, 0.0f);
      const RowSource source{x, s.in_w * lanes, s.in_h, s.in_w, s.pad_top, s.pad_left, zero_row};
      rows(d, s, source, weights, biases, blocked_out);
    } else {
      for (int64_t oh0 = 0; oh0 < s.out_h; oh0 += band) {
        PlaneConvShape part = s;
        part.out_h = std::min(band, s.out_h - oh0);
        const int64_t count = band == s.out_h ? padded_h : (part.out_h - 1) * s.stride_h + s.kernel_h;
        fill_rows(oh0 * s.stride_h, count);
        const RowSource source{padded, row_floats, count, padded_w, 0, 0, nullptr};
        rows(d, part, source, weights, biases, blocked_out + oh0 * s.out_w * lanes);
      }
    }
    if (!y_blocked) simd::transpose_4byte(blocked_out, lanes, out_pixels, channels, y, out_plane);
    return;
  }
  fill_rows(0, padded_h);
  int64_t q = 0;
  for (; q + kMaxAccumulators <= out_pixels; q += kMaxAccumulators) {
    BlockedTile<kMaxAccumulators>(d, s, padded, padded_w, weights, biases, q, blocked_out);
  }
  for (; q < out_pixels; ++q) BlockedTile<1>(d, s, padded, padded_w, weights, biases, q, blocked_out);

  if (!y_blocked) simd::transpose_4byte(blocked_out, lanes, out_pixels, channels, y, out_plane);
}

#undef MOTE_FOR_EACH_ACCUMULATOR

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu {

HWY_EXPORT(DepthwisePlane);
HWY_EXPORT(DepthwisePlane8);
HWY_EXPORT(DepthwiseLanes);
HWY_EXPORT(DepthwiseChannelBlock);

void depthwise_plane(const PlaneConvShape& s, const float* x, const float* w, float bias, float* y,
                     DepthwiseScratch& scratch) {
  HWY_DYNAMIC_DISPATCH(DepthwisePlane)(s, x, w, bias, y, scratch);
}

void depthwise_plane_8bit(const PlaneConvShape& s, const void* x, bool is_signed, int32_t zero, const float* w,
                          float* y, DepthwiseScratch& scratch) {
  HWY_DYNAMIC_DISPATCH(DepthwisePlane8)(s, x, is_signed, zero, w, y, scratch);
}

int64_t depthwise_block_channels() { return static_cast<int64_t>(HWY_DYNAMIC_DISPATCH(DepthwiseLanes)()); }

// Narrow rows waste lanes and per-row work in the row path (a 7-wide row
// fills 7 of 16 lanes on AVX-512). Measured at 1 thread, row path -> blocks:
//   AVX-512: MobileNetV2's 7x7 layers 0.12 -> 0.07 ms, EfficientNet-B0's 7x7
//     5x5 layers 0.30 -> 0.16 ms; at 14x14 the two tie (0.091 / 0.089 ms);
//   AVX2 (8 lanes; best of 800 runs): 960 channels 7x7 0.144 -> 0.085 ms,
//     576 channels 14x14 stride 2 0.196 -> 0.092 ms, 384 channels 14x14
//     0.147 -> 0.101 ms, 192 channels 28x28 stride 2 0.148 -> 0.080 ms;
//   both: from 28 columns on the transposes cost more than the lanes save
//     (AVX-512 0.089 -> 0.182 ms; AVX2 192 channels 28x28 0.143 -> 0.185).
// Hence up to 14 columns on vectors of 8 lanes or more; narrower vectors
// (NEON, SSE4) keep the half-vector rule until measured.
bool prefers_channel_blocks(const PlaneConvShape& s) {
  const int64_t lanes = depthwise_block_channels();
  return lanes >= 8 ? s.out_w <= 14 : s.out_w * 2 <= lanes;
}

void depthwise_channel_block(const PlaneConvShape& s, const float* x, bool x_blocked, int64_t in_plane,
                             int64_t channels, const float* w, const float* bias, float* y, bool y_blocked,
                             int64_t out_plane, DepthwiseScratch& scratch) {
  HWY_DYNAMIC_DISPATCH(DepthwiseChannelBlock)
  (s, x, x_blocked, in_plane, channels, w, bias, y, y_blocked, out_plane, scratch);
}

}  // namespace mote::cpu
#endif  // HWY_ONCE
