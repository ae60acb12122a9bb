// SIMD body of qdepthwise_quads.hpp, compiled once per instruction set by
// Highway's foreach_target.h; only AVX3_DL computes (the others report that
// they do not, and the caller takes the float path). The HWY_ONCE section
// packs the weights and dispatches at run time.
#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/qdepthwise_quads.cpp"
#include "runtime/cpu/qdepthwise_quads.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "hwy/foreach_target.h"  // must come before highway.h
#include "hwy/highway.h"
#include "runtime/cpu/plane_conv_shape.hpp"
#include "runtime/cpu/qrequantize-inl.h"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/cpu/thread_scratch.hpp"
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

constexpr int64_t kLanes = 16;      // int32 sums per vector: outputs computed together
constexpr int64_t kLoadBytes = 64;  // what one load of an input row brings
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

// Plane x (in_h x in_w) as the kernel reads it: rows of `row_bytes` (a
// multiple of 64), each pad_left zero points, the row's bytes unsigned (int8
// ones + 128, their top bit flipped), and zero points to the end. Columns
// past row_bytes are never read. A 64-byte segment at a time, by masked
// loads, which read only the row's bytes (fault suppression): the first
// segment's bytes moved pad_left lanes up by a permute. (The libc memset
// and memcpy calls for a 7- or 14-wide row's three pieces took longer than
// its convolution, and vpexpandb from memory was no faster.)
template <class TX>
void PadPlane(const PlaneConvShape& s, const TX* HWY_RESTRICT x, uint8_t zero, int64_t row_bytes,
              uint8_t* HWY_RESTRICT rows) {
  const __m512i zeros = _mm512_set1_epi8(static_cast<char>(zero));
  const int64_t left = s.pad_left;  // below 64 (the caller checks)
  const int64_t copied = std::min(s.in_w, row_bytes - left);
  alignas(64) uint8_t up[kLoadBytes];  // the permute moving lane i - left to lane i
  for (int64_t i = 0; i < kLoadBytes; ++i) up[i] = static_cast<uint8_t>((i - left) & 63);
  const __m512i shift = _mm512_load_si512(up);
  // Mask of n lanes from lane `first` on.
  auto lanes = [](int64_t first, int64_t n) -> __mmask64 { return n <= 0 ? 0 : (~uint64_t{0} >> (64 - n)) << first; };
  auto unsigned_bytes = [](__m512i v) {
    return std::is_signed_v<TX> ? _mm512_xor_si512(v, _mm512_set1_epi8(static_cast<char>(0x80))) : v;
  };
  const int64_t first_count = std::min(copied, kLoadBytes - left);
  for (int64_t ih = 0; ih < s.in_h; ++ih) {
    const auto* HWY_RESTRICT src = reinterpret_cast<const uint8_t*>(x + ih * s.in_w);
    uint8_t* HWY_RESTRICT row = rows + ih * row_bytes;
    const __m512i head = unsigned_bytes(_mm512_maskz_loadu_epi8(lanes(0, first_count), src));
    _mm512_store_si512(row, _mm512_mask_permutexvar_epi8(zeros, lanes(left, first_count), shift, head));
    for (int64_t at = kLoadBytes; at < row_bytes; at += kLoadBytes) {
      // Lane i of this segment is src[at - left + i].
      const __mmask64 valid = lanes(0, std::min(copied - (at - left), kLoadBytes));
      const __m512i body = unsigned_bytes(_mm512_maskz_loadu_epi8(valid, src + (at - left)));
      _mm512_store_si512(row + at, _mm512_mask_mov_epi8(zeros, valid, body));
    }
  }
}

// One output plane from its padded input plane: for each output row, the
// kernel rows' input rows (zero_row above and below the image), and for each
// kLanes outputs one load per kernel row, one permute and one vpdpbusd per
// lane group; the sums then requantised and stored. `weights` holds each
// kernel row's lane groups broadcast, `index` the permutes. kRows and
// kPerRow are the kernel's rows and lane groups per row where they are
// constants (3x3 and 5x5 kernels: unrolled, 1.x faster), else 0.
template <int kRows, int kPerRow, class TY>
void Plane(const PlaneConvShape& s, const uint8_t* rows, const uint8_t* zero_row, int64_t row_bytes,
           const __m512i* weights, const __m512i* index, int64_t per_row_arg, int32_t bias, float multiplier,
           const QRequantize& rq, const uint8_t* residual, TY* y) {
  const D32 d;
  const int64_t kernel_h = kRows ? kRows : s.kernel_h;
  const int64_t per_row = kPerRow ? kPerRow : per_row_arg;
  const uint8_t* kernel_rows[kMaxWeightVectors];
  for (int64_t oh = 0; oh < s.out_h; ++oh) {
    for (int64_t kh = 0; kh < kernel_h; ++kh) {
      const int64_t ih = oh * s.stride_h - s.pad_top + kh * s.dilation_h;
      kernel_rows[kh] = ih >= 0 && ih < s.in_h ? rows + ih * row_bytes : zero_row;
    }
    TY* out = y + oh * s.out_w;
    const uint8_t* res = residual ? residual + oh * s.out_w : nullptr;
    for (int64_t ow = 0; ow < s.out_w; ow += kLanes) {
      __m512i sum = _mm512_setzero_si512();
      for (int64_t kh = 0; kh < kernel_h; ++kh) {
        const __m512i bytes = _mm512_loadu_si512(kernel_rows[kh] + ow * s.stride_w);
        for (int64_t q = 0; q < per_row; ++q) {
          sum = DotQuads(sum, _mm512_permutexvar_epi8(index[q], bytes), weights[kh * per_row + q]);
        }
      }
      StoreRow(d, V32{sum}, bias, multiplier, rq, res ? res + ow : nullptr, out + ow, s.out_w - ow);
    }
  }
}

template <class TY>
using PlaneFn = void (*)(const PlaneConvShape&, const uint8_t*, const uint8_t*, int64_t, const __m512i*,
                         const __m512i*, int64_t, int32_t, float, const QRequantize&, const uint8_t*, TY*);

template <class TY>
PlaneFn<TY> PlaneFor(const PlaneConvShape& s, int64_t per_row) {
  if (s.kernel_h == 3 && per_row == 1) return Plane<3, 1, TY>;
  if (s.kernel_h == 5 && per_row == 2) return Plane<5, 2, TY>;
  return Plane<0, 0, TY>;
}

template <class TX, class TY>
void RunTyped(KernelContext& ctx, const ConvGeometry& g, const PlaneConvShape& s, const QDepthwiseQuads& w,
              int32_t x_zero, const std::vector<int32_t>& bias, const std::vector<float>& multiplier,
              const QRequantize& rq) {
  const TX* x = ctx.in(kQcX).data<TX>();
  TY* y = static_cast<TY*>(ctx.out(0).raw());
  const int64_t in_plane = g.in_pixels(), out_plane = g.out_pixels(), mult = g.out_channels_per_group();
  const int64_t vectors = s.kernel_h * w.per_row;
  // Each vector of outputs loads from ow * stride on: the last one's load
  // ends within the row.
  const int64_t reach = (s.out_w - 1) / kLanes * kLanes * s.stride_w + kLoadBytes;
  const int64_t row_bytes = (reach + kLoadBytes - 1) / kLoadBytes * kLoadBytes;  // whole aligned segments
  const int32_t zero = x_zero + (std::is_signed_v<TX> ? 128 : 0);                // in the bytes read
  __m512i index[kMaxWeightVectors];
  for (int64_t q = 0; q < w.per_row; ++q) index[q] = QuadIndices(s, q);
  const auto* residual = static_cast<const uint8_t*>(rq.residual);
  const PlaneFn<TY> plane = PlaneFor<TY>(s, w.per_row);
  ctx.pool->parallel_for(g.batch * g.out_channels, 1, [&](int64_t begin, int64_t end) {
    const int64_t bytes = (s.in_h + 1) * row_bytes;
    auto* rows = reinterpret_cast<uint8_t*>(thread_scratch(static_cast<size_t>((bytes + 3) / 4)));
    uint8_t* zero_row = rows + s.in_h * row_bytes;
    std::memset(zero_row, zero, static_cast<size_t>(row_bytes));
    int64_t padded = -1;  // the (image, input channel) now in `rows`
    __m512i weights[kMaxWeightVectors];
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / g.out_channels, m = task % g.out_channels;
      const int64_t source = n * g.in_channels + m / mult;
      if (source != padded) {
        PadPlane(s, x + source * in_plane, static_cast<uint8_t>(zero), row_bytes, rows);
        padded = source;
      }
      const int32_t* taps = w.taps.data() + m * vectors;
      for (int64_t i = 0; i < vectors; ++i) weights[i] = _mm512_set1_epi32(taps[i]);
      const size_t c = static_cast<size_t>(m);
      plane(s, rows, zero_row, row_bytes, weights, index, w.per_row, bias[c] - zero * w.tap_sums[c], multiplier[c],
            rq, residual ? residual + task * out_plane : nullptr, y + task * out_plane);
    }
  });
}

bool Run(KernelContext& ctx, const ConvGeometry& g, const QDepthwiseQuads& w, int32_t x_zero,
         const std::vector<int32_t>& bias, const std::vector<float>& multiplier, const QRequantize& rq) {
  const PlaneConvShape s =
      plane_conv_shape(g, -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity());
  if (w.per_row == 0 || w.per_row != (s.kernel_w + 3) / 4 || s.kernel_h * w.per_row > kMaxWeightVectors ||
      !LoadHoldsTaps(s, w.per_row) || s.pad_left >= kLoadBytes) {
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
#else
bool Run(KernelContext&, const ConvGeometry&, const QDepthwiseQuads&, int32_t, const std::vector<int32_t>&,
         const std::vector<float>&, const QRequantize&) {
  return false;
}
#endif  // HWY_TARGET == HWY_AVX3_DL

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu {

HWY_EXPORT(Run);

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

bool qdepthwise_quads_run(KernelContext& ctx, const ConvGeometry& g, const QDepthwiseQuads& w, int32_t x_zero,
                          const std::vector<int32_t>& bias, const std::vector<float>& multiplier,
                          const QRequantize& rq) {
  return HWY_DYNAMIC_DISPATCH(Run)(ctx, g, w, x_zero, bias, multiplier, rq);
}

}  // namespace mote::cpu
#endif  // HWY_ONCE
