// Zero-padded copies of input planes for the convolution kernels that read
// their taps straight from them (conv_depthwise's row path, conv_direct):
// every load of a tile, including a row's last partial vector, then falls
// inside the buffer, with no bounds checks in the inner loops. With a width
// stride of 2 each padded row is stored split by parity, its even columns
// and then its odd ones, so that a tap of consecutive outputs reads
// consecutive floats instead of de-interleaving two vectors per multiply-add.
//
// A per-target -inl header: include it after hwy/highway.h in a file compiled
// through hwy/foreach_target.h.
#if defined(MOTE_CPU_PADDED_PLANE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MOTE_CPU_PADDED_PLANE_INL_H_
#undef MOTE_CPU_PADDED_PLANE_INL_H_
#else
#define MOTE_CPU_PADDED_PLANE_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "hwy/highway.h"
#include "runtime/cpu/plane_conv_shape.hpp"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu {
namespace HWY_NAMESPACE {
namespace padded_plane {
namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// Offset in a padded row of the input column c: rows split by parity
// (kStride 2) keep the odd columns `odd_half` floats after the even ones.
template <int kStride>
HWY_INLINE int64_t ColumnOffset(int64_t c, int64_t odd_half) {
  if constexpr (kStride == 1) {
    return c;
  } else {
    return (c & 1) * odd_half + (c >> 1);
  }
}

// ColumnOffset for a stride known only at run time (1 or 2).
HWY_INLINE int64_t ColumnOffset(int64_t c, int64_t stride, int64_t odd_half) {
  return stride == 1 ? ColumnOffset<1>(c, odd_half) : ColumnOffset<2>(c, odd_half);
}

template <class F, size_t... kI>
HWY_INLINE void UnrollSequence(F&& f, std::index_sequence<kI...>) {
  (f(std::integral_constant<int, static_cast<int>(kI)>{}), ...);
}
// Calls f(std::integral_constant<int, i>) for i in [0, kCount).
template <int kCount, class F>
HWY_INLINE void Unroll(F&& f) {
  UnrollSequence(f, std::make_index_sequence<kCount>{});
}


// The padded plane of a PlaneConvShape (stride_w 1 or 2): `height` rows of
// `width` floats; rows split by parity keep their odd columns `odd_half`
// floats after the even ones (0 for stride 1).
struct Layout {
  int64_t height, width, odd_half;
  int64_t floats() const { return height * width; }
};

HWY_INLINE Layout PaddedLayout(const PlaneConvShape& s) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(D()));
  auto whole_vectors = [lanes](int64_t n) { return (n + lanes - 1) / lanes * lanes; };
  const int64_t out_w_vectors = whole_vectors(s.out_w);
  const int64_t reach_w = (s.kernel_w - 1) * s.dilation_w;  // input columns a row of taps spans, less one
  Layout l{};
  l.height = std::max(s.pad_top + s.in_h, (s.out_h - 1) * s.stride_h + (s.kernel_h - 1) * s.dilation_h + 1);
  // Rows hold what the last vector of taps reads and the whole vectors
  // PadRow and SplitRow store; with stride 2, each half of a row does.
  l.odd_half = s.stride_w == 1 ? 0
                               : whole_vectors(std::max((s.pad_left + 1) / 2 + whole_vectors((s.in_w + 1) / 2),
                                                        out_w_vectors + reach_w / 2 + 1));
  l.width = s.stride_w == 1 ? whole_vectors(std::max(s.pad_left + whole_vectors(s.in_w), out_w_vectors + reach_w))
                            : 2 * l.odd_half;
  return l;
}

// Input rows are copied with vector loads and stores, not memcpy and
// memset: three library calls per row cost as much as a 3x3 convolution of
// the row on 56x56 planes.

// Zeroes [0, begin) and [end, n) of a row of n >= lanes floats in whole
// vectors, none past the row: stores may spill into [begin, end), so the
// data is written after. Zeroing whole rows instead compiled to a memset
// call per row, 22 % of a 56x56 depthwise layer's time.
HWY_INLINE void ZeroOutside(D d, float* HWY_RESTRICT row, int64_t n, int64_t begin, int64_t end) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const V zero = hn::Zero(d);
  for (int64_t c = 0; c < begin; c += lanes) hn::StoreU(zero, d, row + std::min(c, n - lanes));
  for (int64_t c = end; c < n; c += lanes) hn::StoreU(zero, d, row + std::min(c, n - lanes));
}

// src[0, count) for count <= lanes as one vector, zeros after. Where masked
// loads read only their lanes (AVX-512: they cannot fault) they read the
// row's end; elsewhere it goes through a buffer (which costs a stall: the
// load waits for the copy's stores). The scalar target's masked load reads
// its one lane whatever the mask (ASan caught it).
HWY_INLINE V LoadFirst(D d, const float* HWY_RESTRICT src, int64_t count) {
#if HWY_MEM_OPS_MIGHT_FAULT || HWY_TARGET == HWY_SCALAR
  HWY_ALIGN float buffer[hn::MaxLanes(d)] = {};
  std::copy(src, src + count, buffer);
  return hn::Load(d, buffer);
#else
  return hn::MaskedLoad(hn::FirstN(d, static_cast<size_t>(count)), d, src);
#endif
}

// A row of the input as floats: float rows as they are (`zero` unused);
// the int8 depthwise kernel's 8-bit rows (uint8_t or int8_t) less their
// zero point, exact in float, so the padded plane it convolves is made in
// the same pass as the copy instead of a widened plane first.
template <class TS>
HWY_INLINE V LoadRow(D d, const TS* HWY_RESTRICT src, int32_t zero) {
  if constexpr (std::is_same_v<TS, float>) {
    (void)zero;
    return hn::LoadU(d, src);
  } else {
    const hn::Rebind<TS, D> d8;
    const hn::Rebind<int32_t, D> di;
    return hn::ConvertTo(d, hn::Sub(hn::PromoteTo(di, hn::LoadU(d8, src)), hn::Set(di, zero)));
  }
}

// LoadRow of src[0, count) for count <= lanes, zeros after.
template <class TS>
HWY_INLINE V LoadRowFirst(D d, const TS* HWY_RESTRICT src, int64_t count, int32_t zero) {
  if constexpr (std::is_same_v<TS, float>) {
    (void)zero;
    return LoadFirst(d, src, count);
  } else {
    HWY_ALIGN TS buffer[hn::MaxLanes(d)] = {};
    std::copy(src, src + count, buffer);
    // The lanes past count read 0 - zero: zero them again.
    return hn::IfThenElseZero(hn::FirstN(d, static_cast<size_t>(count)), LoadRow(d, buffer, zero));
  }
}

// Writes input row `src` at `dst` (pad_left floats into a padded row of
// `padded_w`, a whole number of vectors), with zeros around it unless
// `margins_zeroed` (they are from an earlier call).
template <class TS>
HWY_INLINE void PadRow(D d, const TS* HWY_RESTRICT src, int32_t zero, int64_t in_w, int64_t pad_left,
                       int64_t padded_w, bool margins_zeroed, float* HWY_RESTRICT dst) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  if (!margins_zeroed) ZeroOutside(d, dst, padded_w, pad_left, pad_left + in_w);
  float* data = dst + pad_left;
  int64_t c = 0;
  for (; c + lanes <= in_w; c += lanes) hn::StoreU(LoadRow(d, src + c, zero), d, data + c);
  if (c < in_w) hn::StoreU(LoadRowFirst(d, src + c, in_w - c, zero), d, data + c);
}

// Writes input row `src` into a padded row split by parity: padded column
// j = pad_left + c goes to (j & 1) * odd_half + j / 2 (odd_half a whole
// number of vectors). Straight from the input: assembling the padded row
// first and splitting that cost more than the convolution on 28x28 planes.
template <class TS>
HWY_INLINE void SplitRow(D d, const TS* HWY_RESTRICT src, int32_t zero, int64_t in_w, int64_t pad_left,
                         int64_t odd_half, bool margins_zeroed, float* HWY_RESTRICT dst) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  // Padded column j = pad_left + c sits at j / 2 in the half of j's parity.
  if (!margins_zeroed) {
    ZeroOutside(d, dst, odd_half, (pad_left + 1) / 2, (pad_left + in_w + 1) / 2);
    ZeroOutside(d, dst + odd_half, odd_half, pad_left / 2, (pad_left + in_w) / 2);
  }
  // Even input columns land in the half of pad_left's parity, odd ones in the
  // other.
  const int64_t first = pad_left / 2;
  float* even_cols = dst + (pad_left & 1) * odd_half + first;
  float* odd_cols = dst + (1 - (pad_left & 1)) * odd_half + first + (pad_left & 1);
  for (int64_t c = 0; c < in_w; c += 2 * lanes) {
    // The last columns as whole vectors still, zeros past the row landing on
    // the right margin (odd_half leaves room for them).
    const int64_t rest = in_w - c;
    const V low = rest >= lanes ? LoadRow(d, src + c, zero) : LoadRowFirst(d, src + c, rest, zero);
    const V high = rest >= 2 * lanes ? LoadRow(d, src + c + lanes, zero)
                                     : LoadRowFirst(d, src + c + lanes, std::max<int64_t>(rest - lanes, 0), zero);
#if HWY_TARGET == HWY_SCALAR
    hn::StoreU(low, d, even_cols + c / 2);
    hn::StoreU(high, d, odd_cols + c / 2);
#else
    hn::StoreU(hn::ConcatEven(d, high, low), d, even_cols + c / 2);
    hn::StoreU(hn::ConcatOdd(d, high, low), d, odd_cols + c / 2);
#endif
  }
}

// Input rows [r0, r1) of plane x (float, or 8-bit less `zero`) into
// `padded` (laid out as l), with the padding rows above and below when the
// range reaches them. The zeros around the data are written unless
// `margins_zeroed` (they are from an earlier call on the same layout).
template <class TS>
HWY_INLINE void PadRows(const PlaneConvShape& s, const Layout& l, const TS* HWY_RESTRICT x, int32_t zero, int64_t r0,
                        int64_t r1, bool margins_zeroed, float* HWY_RESTRICT padded) {
  const D d;
  if (!margins_zeroed && r0 == 0) std::fill(padded, padded + s.pad_top * l.width, 0.0f);
  for (int64_t r = r0; r < r1; ++r) {
    float* row = padded + (s.pad_top + r) * l.width;
    if (s.stride_w == 1) {
      PadRow(d, x + r * s.in_w, zero, s.in_w, s.pad_left, l.width, margins_zeroed, row);
    } else {
      SplitRow(d, x + r * s.in_w, zero, s.in_w, s.pad_left, l.odd_half, margins_zeroed, row);
    }
  }
  if (!margins_zeroed && r1 == s.in_h) {
    std::fill(padded + (s.pad_top + s.in_h) * l.width, padded + l.floats(), 0.0f);
  }
}

}  // namespace padded_plane
}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
