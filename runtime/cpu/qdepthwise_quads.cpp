// SIMD body of qdepthwise_quads.hpp, compiled once per instruction set by
// Highway's foreach_target.h; only AVX3_DL computes (the others report that
// they do not, and the caller takes the float path). The HWY_ONCE section
// packs the weights and dispatches at run time.
#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/qdepthwise_quads.cpp"
#include "hwy/foreach_target.h"  // must come before highway.h

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "hwy/highway.h"
#include "runtime/cpu/plane_conv_shape.hpp"
#include "runtime/cpu/qdepthwise_quads.hpp"
#include "runtime/cpu/qrequantize-inl.h"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/qlinear_conv.hpp"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_AVX3_DL
using qrequantize::HWY_NAMESPACE::D32;
using qrequantize::HWY_NAMESPACE::DotQuads;
using qrequantize::HWY_NAMESPACE::StoreRow;
using qrequantize::HWY_NAMESPACE::V32;

constexpr int64_t kLanes = kFlatVectorOutputs;  // int32 sums per vector: outputs computed together
constexpr int64_t kLoadBytes = kFlatLoadBytes;  // what one load of an input row brings
// Broadcast weights kept for a channel (kernel rows times lanes per row):
// a 7x7 kernel needs 14; larger ones take the float path.
constexpr int64_t kMaxWeightVectors = 32;

// Whether one load holds every tap of kLanes consecutive outputs: lane p's
// tap t is byte p * stride + t * dilation of the load.
bool LoadHoldsTaps(const PlaneConvShape& s, int64_t per_row) {
  return (kLanes - 1) * s.stride_w + (4 * per_row - 1) * s.dilation_w < kLoadBytes;
}

// The permute gathering lane group q of a kernel row (taps 4q to 4q + 3):
// byte j of lane p is byte p * stride + (4q + j) * dilation of the load.
__m512i QuadIndices(const PlaneConvShape& s, int64_t q) {
  alignas(64) uint8_t index[kLoadBytes];
  for (int64_t p = 0; p < kLanes; ++p) {
    for (int64_t j = 0; j < 4; ++j) {
      index[4 * p + j] = static_cast<uint8_t>(p * s.stride_w + (4 * q + j) * s.dilation_w);
    }
  }
  return _mm512_load_si512(index);
}

// The lanes of a load from column `first` of a row (lane i is column
// first + i) that lie inside the row.
HWY_INLINE __mmask64 LanesInside(const PlaneConvShape& s, int64_t first) {
  const int64_t lo = std::max<int64_t>(0, -first), hi = std::min<int64_t>(kLoadBytes, s.in_w - first);
  return hi <= lo ? 0 : (~uint64_t{0} >> (kLoadBytes - (hi - lo))) << lo;
}

// The bytes of one load: input row `row` (null above and below the image:
// all zero points) from column `first` on, the lanes outside the row (the
// padding, and the next row's bytes) the zero point: a masked load, which
// reads only the row's own bytes (fault suppression) and leaves `zeros` in
// the other lanes; int8 bytes with their top bit flipped (x + 128). `raw_zero`
// is the zero point as stored in x, `zeros` the zero point of the bytes
// read.
template <class TX>
HWY_INLINE __m512i LoadRow(const TX* row, int64_t first, __mmask64 inside, __m512i raw_zero, __m512i zeros) {
  if (!row) return zeros;
  // The address may lie before the row (the left padding) or the tensor,
  // which only masked lanes would read: formed as an integer, not a pointer.
  const auto address =
      reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(row) + static_cast<uintptr_t>(first));
  if constexpr (std::is_signed_v<TX>) {
    return _mm512_xor_si512(_mm512_mask_loadu_epi8(raw_zero, inside, address),
                            _mm512_set1_epi8(static_cast<char>(0x80)));
  } else {
    (void)zeros;
    return _mm512_mask_loadu_epi8(raw_zero, inside, address);
  }
}

// One output plane from input plane x: for each output row, the kernel
// rows' input rows, and for each kLanes outputs one load per kernel row
// (masked to the row's bytes), one permute and one vpdpbusd per lane group;
// the sums then requantised and stored. `weights` holds each kernel row's
// lane groups broadcast, `index` the permutes. kRows and kPerRow are the
// kernel's rows and lane groups per row where they are constants (3x3 and
// 5x5 kernels: unrolled; MobileNetV2's layers 1.4x faster), else 0. Reading
// the input in place, not from a padded copy, took the copy's 7 % of int8
// MobileNetV2 off.
template <int kRows, int kPerRow, class TX, class TY>
void Plane(const PlaneConvShape& s, const TX* x, int32_t x_zero, int32_t zero, const __m512i* weights,
           const __m512i* index, const int64_t*, int64_t per_row_arg, int32_t bias, float multiplier,
           const QRequantize& rq, const uint8_t* residual, TY* y) {
  const D32 d;
  const int64_t kernel_h = kRows ? kRows : s.kernel_h;
  const int64_t per_row = kPerRow ? kPerRow : per_row_arg;
  const __m512i raw_zero = _mm512_set1_epi8(static_cast<char>(x_zero));
  const __m512i zeros = _mm512_set1_epi8(static_cast<char>(zero));
  const TX* kernel_rows[kMaxWeightVectors];
  for (int64_t oh = 0; oh < s.out_h; ++oh) {
    for (int64_t kh = 0; kh < kernel_h; ++kh) {
      const int64_t ih = oh * s.stride_h - s.pad_top + kh * s.dilation_h;
      kernel_rows[kh] = ih >= 0 && ih < s.in_h ? x + ih * s.in_w : nullptr;
    }
    TY* out = y + oh * s.out_w;
    const uint8_t* res = residual ? residual + oh * s.out_w : nullptr;
    for (int64_t ow = 0; ow < s.out_w; ow += kLanes) {
      const int64_t first = ow * s.stride_w - s.pad_left;
      const __mmask64 inside = LanesInside(s, first);
      __m512i sum = _mm512_setzero_si512();
      for (int64_t kh = 0; kh < kernel_h; ++kh) {
        const __m512i bytes = LoadRow(kernel_rows[kh], first, inside, raw_zero, zeros);
        for (int64_t q = 0; q < per_row; ++q) {
          sum = DotQuads(sum, _mm512_permutexvar_epi8(index[q], bytes), weights[kh * per_row + q]);
        }
      }
      StoreRow(d, V32{sum}, bias, multiplier, rq, res ? res + ow : nullptr, out + ow, s.out_w - ow);
    }
  }
}

// Plane for unit height dilation and a height stride of 1 or 2, two output
// rows at a time: rows oh and oh + 1 read input rows oh * kStride - pad_top
// + t for t < kRows + kStride, so each loaded and permuted row serves both
// where their kernels overlap (at stride 1, kRows + 1 loads and permutes
// for two rows instead of 2 * kRows), and the two rows' sums are
// independent chains for the core to overlap: MobileNetV2 int8's depthwise
// layers 0.84 -> 0.63 ms at 1 thread. A last odd row is computed and not
// stored. (Four rows at a time, written over an array of sums, measured
// 0.74 ms, and so did two in that form: the compiler keeps these two named
// sums in registers.)
template <int kRows, int kPerRow, int kStride, class TX, class TY>
void PlaneRowPairs(const PlaneConvShape& s, const TX* x, int32_t x_zero, int32_t zero, const __m512i* weights,
                   const __m512i* index, const int64_t*, int64_t, int32_t bias, float multiplier,
                   const QRequantize& rq, const uint8_t* residual, TY* y) {
  static_assert(kRows > 0 && kPerRow > 0 && (kStride == 1 || kStride == 2), "constant kernels only");
  constexpr int kInputRows = kRows + kStride;
  const D32 d;
  const __m512i raw_zero = _mm512_set1_epi8(static_cast<char>(x_zero));
  const __m512i zeros = _mm512_set1_epi8(static_cast<char>(zero));
  const TX* input_rows[kInputRows];
  for (int64_t oh = 0; oh < s.out_h; oh += 2) {
    for (int t = 0; t < kInputRows; ++t) {
      const int64_t ih = oh * kStride - s.pad_top + t;
      input_rows[t] = ih >= 0 && ih < s.in_h ? x + ih * s.in_w : nullptr;
    }
    const bool second = oh + 1 < s.out_h;
    TY* out = y + oh * s.out_w;
    const uint8_t* res = residual ? residual + oh * s.out_w : nullptr;
    for (int64_t ow = 0; ow < s.out_w; ow += kLanes) {
      const int64_t first = ow * s.stride_w - s.pad_left;
      const __mmask64 inside = LanesInside(s, first);
      __m512i sum0 = _mm512_setzero_si512(), sum1 = sum0;
      for (int t = 0; t < kInputRows; ++t) {
        const __m512i bytes = LoadRow(input_rows[t], first, inside, raw_zero, zeros);
        for (int q = 0; q < kPerRow; ++q) {
          const __m512i quads = _mm512_permutexvar_epi8(index[q], bytes);
          if (t < kRows) sum0 = DotQuads(sum0, quads, weights[t * kPerRow + q]);
          if (t >= kStride) sum1 = DotQuads(sum1, quads, weights[(t - kStride) * kPerRow + q]);
        }
      }
      const int64_t count = s.out_w - ow;
      StoreRow(d, V32{sum0}, bias, multiplier, rq, res ? res + ow : nullptr, out + ow, count);
      if (second) {
        StoreRow(d, V32{sum1}, bias, multiplier, rq, res ? res + s.out_w + ow : nullptr, out + s.out_w + ow, count);
      }
    }
  }
}

// The two-source permute for PlaneNarrow: lanes below out_w take output row
// oh's quads from the first source (an input row of oh), the next out_w
// lanes row oh + 1's from the second (bytes 64 on).
__m512i TwoRowQuadIndices(const PlaneConvShape& s, int64_t q) {
  alignas(64) uint8_t index[kLoadBytes] = {};
  for (int64_t p = 0; p < 2 * s.out_w; ++p) {
    const int64_t lane = p % s.out_w, source = p < s.out_w ? 0 : kLoadBytes;
    for (int64_t j = 0; j < 4; ++j) {
      index[4 * p + j] = static_cast<uint8_t>(source + lane * s.stride_w + (4 * q + j) * s.dilation_w);
    }
  }
  return _mm512_load_si512(index);
}

// Plane for outputs at most half a vector wide (MobileNetV2's 7x7 layers),
// unit height dilation, height stride 1 or 2: two output rows in one
// vector, row oh in the first out_w lanes and oh + 1 in the next (so the
// store is one run of the output), each kernel row's quads for both
// gathered from two loaded input rows by one two-source permute (vpermt2b).
// Half the vectors of PlaneRowPairs, which filled 7 of 16 lanes there.
template <int kRows, int kPerRow, int kStride, class TX, class TY>
void PlaneNarrow(const PlaneConvShape& s, const TX* x, int32_t x_zero, int32_t zero, const __m512i* weights,
                 const __m512i* index, const int64_t*, int64_t, int32_t bias, float multiplier, const QRequantize& rq,
                 const uint8_t* residual, TY* y) {
  static_assert(kRows > 0 && kPerRow > 0 && (kStride == 1 || kStride == 2), "constant kernels only");
  constexpr int kInputRows = kRows + kStride;  // row oh's kernel rows, then oh + 1's last kStride
  const D32 d;
  const __m512i raw_zero = _mm512_set1_epi8(static_cast<char>(x_zero));
  const __m512i zeros = _mm512_set1_epi8(static_cast<char>(zero));
  const int64_t first = -s.pad_left;
  const __mmask64 inside = LanesInside(s, first);
  for (int64_t oh = 0; oh < s.out_h; oh += 2) {
    __m512i bytes[kInputRows];
    for (int t = 0; t < kInputRows; ++t) {
      const int64_t ih = oh * kStride - s.pad_top + t;
      bytes[t] = LoadRow(ih >= 0 && ih < s.in_h ? x + ih * s.in_w : nullptr, first, inside, raw_zero, zeros);
    }
    __m512i sum = _mm512_setzero_si512();
    for (int t = 0; t < kRows; ++t) {
      for (int q = 0; q < kPerRow; ++q) {
        const __m512i quads = _mm512_permutex2var_epi8(bytes[t], index[q], bytes[t + kStride]);
        sum = DotQuads(sum, quads, weights[t * kPerRow + q]);
      }
    }
    const int64_t count = std::min<int64_t>(2, s.out_h - oh) * s.out_w;
    const int64_t at = oh * s.out_w;
    StoreRow(d, V32{sum}, bias, multiplier, rq, residual ? residual + at : nullptr, y + at, count);
  }
}

// A plane computed flat (QDepthwiseFlat): vector v of outputs (16v on, in
// the plane's order) from one load of the input from byte windows[v], its
// kernel row kh's lane group q gathered by index[(v * kernel_h + kh) *
// per_row + q] from that load and a register of zero points (bytes 64 on).
// MobileNetV2's 7x7 layers had filled 14 of 16 lanes two rows at a time
// (PlaneNarrow) and its 14x14 ones 14 of 16, a row at a time, each load
// and permute serving one or two rows of outputs.
template <int kRows, int kPerRow, class TX, class TY>
void PlaneFlat(const PlaneConvShape& s, const TX* x, int32_t x_zero, int32_t zero, const __m512i* weights,
               const __m512i* index, const int64_t* windows, int64_t per_row_arg, int32_t bias, float multiplier,
               const QRequantize& rq, const uint8_t* residual, TY* y) {
  const int64_t permutes = kRows ? kRows * kPerRow : s.kernel_h * per_row_arg;  // per vector
  const __m512i raw_zero = _mm512_set1_epi8(static_cast<char>(x_zero)),
                zeros = _mm512_set1_epi8(static_cast<char>(zero));
  const int64_t plane_bytes = s.in_h * s.in_w, outputs = s.out_h * s.out_w;
  for (int64_t o = 0, v = 0; o < outputs; o += kLanes, ++v) {
    const int64_t first = windows[v];
    const __mmask64 inside = ~uint64_t{0} >> (kLoadBytes - std::min(kLoadBytes, plane_bytes - first));
    const __m512i bytes = LoadRow(x, first, inside, raw_zero, zeros);
    __m512i sum = _mm512_setzero_si512();
    for (int64_t k = 0; k < permutes; ++k) {
      sum = DotQuads(sum, _mm512_permutex2var_epi8(bytes, index[v * permutes + k], zeros), weights[k]);
    }
    StoreRow(D32(), V32{sum}, bias, multiplier, rq, residual ? residual + o : nullptr, y + o, outputs - o);
  }
}

template <class TX, class TY>
using PlaneFn = void (*)(const PlaneConvShape&, const TX*, int32_t, int32_t, const __m512i*, const __m512i*,
                         const int64_t*, int64_t, int32_t, float, const QRequantize&, const uint8_t*, TY*);

// Which plane kernel computes a layer: the flat one where the layer's
// tables serve its planes, else the unrolled ones for 3x3 and 5x5 (narrow
// outputs two rows to a vector, else two rows at a time where the height
// stride is 1 or 2, else one), the general one for the rest; and which
// permutes it takes.
enum class Permutes { kOneRow, kTwoRows, kFlat };

template <class TX, class TY>
struct PlanePath {
  PlaneFn<TX, TY> fn = Plane<0, 0, TX, TY>;
  Permutes permutes = Permutes::kOneRow;
};

template <int kRows, int kPerRow, class TX, class TY>
PlanePath<TX, TY> UnrolledPath(const PlaneConvShape& s, bool flat) {
  if (flat) return {PlaneFlat<kRows, kPerRow, TX, TY>, Permutes::kFlat};
  if (s.dilation_h != 1 || (s.stride_h != 1 && s.stride_h != 2)) return {Plane<kRows, kPerRow, TX, TY>};
  const bool one = s.stride_h == 1;
  if (2 * s.out_w <= kLanes) {
    return {one ? PlaneNarrow<kRows, kPerRow, 1, TX, TY> : PlaneNarrow<kRows, kPerRow, 2, TX, TY>,
            Permutes::kTwoRows};
  }
  return {one ? PlaneRowPairs<kRows, kPerRow, 1, TX, TY> : PlaneRowPairs<kRows, kPerRow, 2, TX, TY>};
}

template <class TX, class TY>
PlanePath<TX, TY> PlaneFor(const PlaneConvShape& s, int64_t per_row, bool flat) {
  if (s.kernel_h == 3 && per_row == 1) return UnrolledPath<3, 1, TX, TY>(s, flat);
  if (s.kernel_h == 5 && per_row == 2) return UnrolledPath<5, 2, TX, TY>(s, flat);
  if (flat) return {PlaneFlat<0, 0, TX, TY>, Permutes::kFlat};
  return {};
}

template <class TX, class TY>
void RunTyped(KernelContext& ctx, const ConvGeometry& g, const PlaneConvShape& s, const QDepthwiseQuads& w,
              int32_t x_zero, const std::vector<int32_t>& bias, const std::vector<float>& multiplier,
              const QRequantize& rq) {
  const TX* x = ctx.in(kQcX).data<TX>();
  TY* y = static_cast<TY*>(ctx.out(0).raw());
  const int64_t in_plane = g.in_pixels(), out_plane = g.out_pixels(), mult = g.out_channels_per_group();
  const int64_t vectors = s.kernel_h * w.per_row;
  const int32_t zero = x_zero + (std::is_signed_v<TX> ? 128 : 0);  // in the bytes read
  // The flat path where the layer was prepared for these planes.
  const PlanePath<TX, TY> path = PlaneFor<TX, TY>(s, w.per_row, w.flat.serves(s));
  const PlaneFn<TX, TY> plane = path.fn;
  __m512i index[kFlatMaxPermutes];
  if (path.permutes == Permutes::kFlat) {
    for (size_t i = 0; i < w.flat.index.size() / kLoadBytes; ++i) {
      index[i] = _mm512_loadu_si512(w.flat.index.data() + i * kLoadBytes);
    }
  } else {
    const bool two_rows = path.permutes == Permutes::kTwoRows;
    for (int64_t q = 0; q < w.per_row; ++q) index[q] = two_rows ? TwoRowQuadIndices(s, q) : QuadIndices(s, q);
  }
  const int64_t* windows = w.flat.windows.data();
  const auto* residual = static_cast<const uint8_t*>(rq.residual);
  ctx.pool->parallel_for(g.batch * g.out_channels, 1, [&](int64_t begin, int64_t end) {
    __m512i weights[kMaxWeightVectors];
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / g.out_channels, m = task % g.out_channels;
      const int64_t source = n * g.in_channels + m / mult;
      const int32_t* taps = w.taps.data() + m * vectors;
      for (int64_t i = 0; i < vectors; ++i) weights[i] = _mm512_set1_epi32(taps[i]);
      const size_t c = static_cast<size_t>(m);
      plane(s, x + source * in_plane, x_zero, zero, weights, index, windows, w.per_row,
            bias[c] - zero * w.tap_sums[c], multiplier[c], rq, residual ? residual + task * out_plane : nullptr,
            y + task * out_plane);
    }
  });
}

bool Run(KernelContext& ctx, const ConvGeometry& g, const QDepthwiseQuads& w, int32_t x_zero,
         const std::vector<int32_t>& bias, const std::vector<float>& multiplier, const QRequantize& rq) {
  const PlaneConvShape s =
      plane_conv_shape(g, -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity());
  const bool flat = w.flat.serves(s);
  if (w.per_row == 0 || w.per_row != (s.kernel_w + 3) / 4 || s.kernel_h * w.per_row > kMaxWeightVectors ||
      (!flat && !LoadHoldsTaps(s, w.per_row))) {
    return false;
  }
  const bool x_signed = ctx.in(kQcX).dtype() == DType::I8;
  if (rq.dtype == DType::I8) {
    x_signed ? RunTyped<int8_t, int8_t>(ctx, g, s, w, x_zero, bias, multiplier, rq)
             : RunTyped<uint8_t, int8_t>(ctx, g, s, w, x_zero, bias, multiplier, rq);
  } else {
    x_signed ? RunTyped<int8_t, uint8_t>(ctx, g, s, w, x_zero, bias, multiplier, rq)
             : RunTyped<uint8_t, uint8_t>(ctx, g, s, w, x_zero, bias, multiplier, rq);
  }
  return true;
}
bool RunsIntegers() { return true; }
#else
bool Run(KernelContext&, const ConvGeometry&, const QDepthwiseQuads&, int32_t, const std::vector<int32_t>&,
         const std::vector<float>&, const QRequantize&) {
  return false;
}
bool RunsIntegers() { return false; }
#endif  // HWY_TARGET == HWY_AVX3_DL

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu {

HWY_EXPORT(Run);
HWY_EXPORT(RunsIntegers);

QDepthwiseQuads qdepthwise_quads_pack(int64_t channels, int64_t kernel_h, int64_t kernel_w, const int16_t* taps) {
  const int64_t count = channels * kernel_h * kernel_w;
  const auto [lowest, highest] = std::minmax_element(taps, taps + count);
  if (count == 0 || *lowest < -128 || *highest > 127) return {};
  QDepthwiseQuads q;
  q.per_row = (kernel_w + 3) / 4;
  q.taps.assign(static_cast<size_t>(channels * kernel_h * q.per_row), 0);
  q.tap_sums.assign(static_cast<size_t>(channels), 0);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t r = 0; r < kernel_h; ++r) {
      for (int64_t t = 0; t < kernel_w; ++t) {
        const int16_t tap = taps[(c * kernel_h + r) * kernel_w + t];
        auto& lane = q.taps[static_cast<size_t>((c * kernel_h + r) * q.per_row + t / 4)];
        lane = static_cast<int32_t>(static_cast<uint32_t>(lane) |
                                    (static_cast<uint32_t>(static_cast<uint8_t>(tap)) << (8 * (t % 4))));
        q.tap_sums[static_cast<size_t>(c)] += tap;
      }
    }
  }
  return q;
}

bool qdepthwise_quads_available() { return HWY_DYNAMIC_DISPATCH(RunsIntegers)(); }

void qdepthwise_quads_plan_flat(const ConvGeometry& g, QDepthwiseQuads& w) {
  constexpr int64_t kLanes = kFlatVectorOutputs, kLoadBytes = kFlatLoadBytes;
  w.flat = {};
  if (!qdepthwise_quads_available()) return;
  const PlaneConvShape s = plane_conv_shape(g, 0.0f, 0.0f);
  const int64_t outputs = s.out_h * s.out_w, vectors = (outputs + kLanes - 1) / kLanes;
  const int64_t permutes = vectors * s.kernel_h * w.per_row;
  // Rows of a vector or more fill their vectors the other ways.
  if (w.per_row == 0 || s.out_w >= kLanes || outputs == 0 || permutes > kFlatMaxPermutes) return;
  // The byte of the flattened input plane that output o reads at tap (kh,
  // kw), or -1 in the padding.
  const auto tap = [&](int64_t o, int64_t kh, int64_t kw) -> int64_t {
    const int64_t ih = o / s.out_w * s.stride_h - s.pad_top + kh * s.dilation_h;
    const int64_t iw = o % s.out_w * s.stride_w - s.pad_left + kw * s.dilation_w;
    return ih >= 0 && ih < s.in_h && iw >= 0 && iw < s.in_w ? ih * s.in_w + iw : -1;
  };
  QDepthwiseFlat flat;
  flat.shape = flat_shape_key(s);
  flat.windows.assign(static_cast<size_t>(vectors), 0);
  flat.index.assign(static_cast<size_t>(permutes * kLoadBytes), uint8_t{kLoadBytes});  // padding by default
  for (int64_t v = 0; v < vectors; ++v) {
    const int64_t end = std::min(outputs, (v + 1) * kLanes);
    int64_t lo = -1, hi = -1;
    for (int64_t o = v * kLanes; o < end; ++o) {
      for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
        for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
          const int64_t t = tap(o, kh, kw);
          if (t < 0) continue;
          lo = lo < 0 ? t : std::min(lo, t);
          hi = std::max(hi, t);
        }
      }
    }
    if (hi - lo >= kLoadBytes) return;  // this vector's taps span more than one load
    flat.windows[static_cast<size_t>(v)] = std::max<int64_t>(lo, 0);
    for (int64_t o = v * kLanes; o < end; ++o) {
      for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
        for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
          const int64_t t = tap(o, kh, kw);
          if (t < 0) continue;
          const int64_t permute = (v * s.kernel_h + kh) * w.per_row + kw / 4;
          flat.index[static_cast<size_t>(permute * kLoadBytes + 4 * (o - v * kLanes) + kw % 4)] =
              static_cast<uint8_t>(t - lo);
        }
      }
    }
  }
  w.flat = std::move(flat);
}

bool qdepthwise_quads_run(KernelContext& ctx, const ConvGeometry& g, const QDepthwiseQuads& w, int32_t x_zero,
                          const std::vector<int32_t>& bias, const std::vector<float>& multiplier,
                          const QRequantize& rq) {
  return HWY_DYNAMIC_DISPATCH(Run)(ctx, g, w, x_zero, bias, multiplier, rq);
}

}  // namespace mote::cpu
#endif  // HWY_ONCE
