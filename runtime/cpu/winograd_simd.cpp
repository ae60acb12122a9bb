// SIMD bodies of winograd_simd.hpp, compiled once per instruction set by
// Highway's foreach_target.h; the HWY_ONCE section dispatches at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/winograd_simd.cpp"
#include "hwy/foreach_target.h"  // must come before highway.h

#include <cassert>
#include <cstddef>

#include "hwy/highway.h"
#include "runtime/cpu/simd_clamp-inl.h"
#include "runtime/cpu/simd_store-inl.h"
#include "runtime/cpu/winograd_simd.hpp"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// At most kWinogradLanes lanes: the row padding is sized for that (wide SVE).
using D = hn::CappedTag<float, kWinogradLanes>;
using V = hn::Vec<D>;

// B^T along one line of six points: the input transform's 1-D step. (SVE
// vectors cannot live in arrays, hence the six references.)
HWY_INLINE void InputLine(V d0, V d1, V d2, V d3, V d4, V d5, V& o0, V& o1, V& o2, V& o3, V& o4, V& o5) {
  const D d;
  const V four = hn::Set(d, 4.0f), five = hn::Set(d, 5.0f), two = hn::Set(d, 2.0f);
  o0 = hn::NegMulAdd(five, d2, hn::MulAdd(four, d0, d4));  // 4 d0 - 5 d2 + d4
  o5 = hn::NegMulAdd(five, d3, hn::MulAdd(four, d1, d5));  // 4 d1 - 5 d3 + d5
  o1 = hn::NegMulAdd(four, hn::Add(d1, d2), hn::Add(d3, d4));
  o2 = hn::MulAdd(four, hn::Sub(d1, d2), hn::Sub(d4, d3));
  const V d42 = hn::Sub(d4, d2), d31 = hn::Sub(d3, d1);
  o3 = hn::MulAdd(two, d31, d42);
  o4 = hn::NegMulAdd(two, d31, d42);
}

// A^T along one line of six points: the output transform's 1-D step.
HWY_INLINE void OutputLine(V m0, V m1, V m2, V m3, V m4, V m5, V& o0, V& o1, V& o2, V& o3) {
  const D d;
  const V a = hn::Add(m1, m2), b = hn::Sub(m1, m2), c = hn::Add(m3, m4), e = hn::Sub(m3, m4);
  o0 = hn::Add(hn::Add(m0, a), c);
  o1 = hn::MulAdd(hn::Set(d, 2.0f), e, b);
  o2 = hn::MulAdd(hn::Set(d, 4.0f), c, a);
  o3 = hn::Add(hn::MulAdd(hn::Set(d, 8.0f), e, b), m5);
}

// clamp(y + add, lo, hi): the bias and fused clamp of an output vector (NaN
// stays NaN, as in the other paths).
HWY_INLINE V BiasClamp(V y, V add, V lo, V hi) {
  return simd_clamp::HWY_NAMESPACE::ClampKeepingNaN(hn::Add(y, add), lo, hi);
}

// Stores v's first `count` lanes (all when count >= Lanes): the last vector
// of tiles must not reach the next channel's, which another thread writes.
HWY_INLINE void StoreFirst(V v, size_t count, float* HWY_RESTRICT out) {
  simd_store::HWY_NAMESPACE::StoreFirstN(D(), v, count, out);
}

// Six vectors `stride` floats apart.
HWY_INLINE void Load6(const float* p, size_t stride, V& v0, V& v1, V& v2, V& v3, V& v4, V& v5) {
  const D d;
  v0 = hn::LoadU(d, p);
  v1 = hn::LoadU(d, p + stride);
  v2 = hn::LoadU(d, p + 2 * stride);
  v3 = hn::LoadU(d, p + 3 * stride);
  v4 = hn::LoadU(d, p + 4 * stride);
  v5 = hn::LoadU(d, p + 5 * stride);
}

// Columns of a padded row that the loads across `tiles` tiles read, rounded
// up to whole vectors: the pass down the columns covers them all.
HWY_INLINE size_t ColumnsRead(size_t tiles, size_t tile) {
  const size_t L = hn::Lanes(D());
  return ((tiles + L - 1) / L * L * tile + tile + L - 1) / L * L;
}

void InputRow4(const float* HWY_RESTRICT rows, size_t stride, size_t tiles, float* HWY_RESTRICT scratch,
               float* HWY_RESTRICT out, size_t point_stride) {
  const D d;
  const size_t L = hn::Lanes(d);
  // Down the columns, over every column the loads across tiles will read.
  for (size_t x = 0; x < ColumnsRead(tiles, 4); x += L) {
    V i0, i1, i2, i3, i4, i5, o0, o1, o2, o3, o4, o5;
    Load6(rows + x, stride, i0, i1, i2, i3, i4, i5);
    InputLine(i0, i1, i2, i3, i4, i5, o0, o1, o2, o3, o4, o5);
    float* o = scratch + x;
    hn::StoreU(o0, d, o);
    hn::StoreU(o1, d, o + stride);
    hn::StoreU(o2, d, o + 2 * stride);
    hn::StoreU(o3, d, o + 3 * stride);
    hn::StoreU(o4, d, o + 4 * stride);
    hn::StoreU(o5, d, o + 5 * stride);
  }
  // Across each tile: lane k of column j holds column 4 (t0 + k) + j.
  for (size_t t0 = 0; t0 < tiles; t0 += L) {
    const size_t count = tiles - t0;
    for (size_t r = 0; r < 6; ++r) {
      const float* line = scratch + r * stride + 4 * t0;
      V c0, c1, c2, c3, c4, c5, unused0, unused1, o0, o1, o2, o3, o4, o5;
      hn::LoadInterleaved4(d, line, c0, c1, c2, c3);
      hn::LoadInterleaved4(d, line + 4, c4, c5, unused0, unused1);
      InputLine(c0, c1, c2, c3, c4, c5, o0, o1, o2, o3, o4, o5);
      float* o = out + r * 6 * point_stride + t0;
      StoreFirst(o0, count, o);
      StoreFirst(o1, count, o + point_stride);
      StoreFirst(o2, count, o + 2 * point_stride);
      StoreFirst(o3, count, o + 3 * point_stride);
      StoreFirst(o4, count, o + 4 * point_stride);
      StoreFirst(o5, count, o + 5 * point_stride);
    }
  }
}

// A^T down column j of the row results in `across` ([6][4][L]), then bias
// and clamp: output rows 0..3 of column j.
HWY_INLINE void OutputColumn(const float* across, size_t j, V add, V lo, V hi, V& y0, V& y1, V& y2, V& y3) {
  const size_t L = hn::Lanes(D());
  V m0, m1, m2, m3, m4, m5;
  Load6(across + j * L, 4 * L, m0, m1, m2, m3, m4, m5);
  OutputLine(m0, m1, m2, m3, m4, m5, y0, y1, y2, y3);
  y0 = BiasClamp(y0, add, lo, hi);
  y1 = BiasClamp(y1, add, lo, hi);
  y2 = BiasClamp(y2, add, lo, hi);
  y3 = BiasClamp(y3, add, lo, hi);
}

void OutputRow4(const float* HWY_RESTRICT m, size_t point_stride, size_t tiles, float bias, float lo, float hi,
                float* HWY_RESTRICT rows, size_t stride) {
  const D d;
  const size_t L = hn::Lanes(d);
  const V add = hn::Set(d, bias), vlo = hn::Set(d, lo), vhi = hn::Set(d, hi);
  HWY_ALIGN float across[24 * kWinogradLanes];  // A^T across each of the six rows
  for (size_t t0 = 0; t0 < tiles; t0 += L) {
    for (size_t r = 0; r < 6; ++r) {
      V m0, m1, m2, m3, m4, m5, o0, o1, o2, o3;
      Load6(m + r * 6 * point_stride + t0, point_stride, m0, m1, m2, m3, m4, m5);
      OutputLine(m0, m1, m2, m3, m4, m5, o0, o1, o2, o3);
      float* a = across + r * 4 * L;
      hn::Store(o0, d, a);
      hn::Store(o1, d, a + L);
      hn::Store(o2, d, a + 2 * L);
      hn::Store(o3, d, a + 3 * L);
    }
    // y<i><j>: output row i, column j of each tile.
    V y00, y10, y20, y30, y01, y11, y21, y31, y02, y12, y22, y32, y03, y13, y23, y33;
    OutputColumn(across, 0, add, vlo, vhi, y00, y10, y20, y30);
    OutputColumn(across, 1, add, vlo, vhi, y01, y11, y21, y31);
    OutputColumn(across, 2, add, vlo, vhi, y02, y12, y22, y32);
    OutputColumn(across, 3, add, vlo, vhi, y03, y13, y23, y33);
    float* o = rows + 4 * t0;
    hn::StoreInterleaved4(y00, y01, y02, y03, d, o);
    hn::StoreInterleaved4(y10, y11, y12, y13, d, o + stride);
    hn::StoreInterleaved4(y20, y21, y22, y23, d, o + 2 * stride);
    hn::StoreInterleaved4(y30, y31, y32, y33, d, o + 3 * stride);
  }
}

// F(2x2, 3x3): B^T and A^T along one line of four points.
HWY_INLINE void InputLine2(V d0, V d1, V d2, V d3, V& o0, V& o1, V& o2, V& o3) {
  o0 = hn::Sub(d0, d2);
  o1 = hn::Add(d1, d2);
  o2 = hn::Sub(d2, d1);
  o3 = hn::Sub(d1, d3);
}

HWY_INLINE void OutputLine2(V m0, V m1, V m2, V m3, V& o0, V& o1) {
  o0 = hn::Add(hn::Add(m0, m1), m2);
  o1 = hn::Sub(hn::Sub(m1, m2), m3);
}

HWY_INLINE void Load4(const float* p, size_t stride, V& v0, V& v1, V& v2, V& v3) {
  const D d;
  v0 = hn::LoadU(d, p);
  v1 = hn::LoadU(d, p + stride);
  v2 = hn::LoadU(d, p + 2 * stride);
  v3 = hn::LoadU(d, p + 3 * stride);
}

void InputRow2(const float* HWY_RESTRICT rows, size_t stride, size_t tiles, float* HWY_RESTRICT scratch,
               float* HWY_RESTRICT out, size_t point_stride) {
  const D d;
  const size_t L = hn::Lanes(d);
  for (size_t x = 0; x < ColumnsRead(tiles, 2); x += L) {
    V i0, i1, i2, i3, o0, o1, o2, o3;
    Load4(rows + x, stride, i0, i1, i2, i3);
    InputLine2(i0, i1, i2, i3, o0, o1, o2, o3);
    float* o = scratch + x;
    hn::StoreU(o0, d, o);
    hn::StoreU(o1, d, o + stride);
    hn::StoreU(o2, d, o + 2 * stride);
    hn::StoreU(o3, d, o + 3 * stride);
  }
  // Across each tile: lane k of column j holds column 2 (t0 + k) + j.
  for (size_t t0 = 0; t0 < tiles; t0 += L) {
    const size_t count = tiles - t0;
    for (size_t r = 0; r < 4; ++r) {
      const float* line = scratch + r * stride + 2 * t0;
      V c0, c1, c2, c3, o0, o1, o2, o3;
      hn::LoadInterleaved2(d, line, c0, c1);
      hn::LoadInterleaved2(d, line + 2, c2, c3);
      InputLine2(c0, c1, c2, c3, o0, o1, o2, o3);
      float* o = out + r * 4 * point_stride + t0;
      StoreFirst(o0, count, o);
      StoreFirst(o1, count, o + point_stride);
      StoreFirst(o2, count, o + 2 * point_stride);
      StoreFirst(o3, count, o + 3 * point_stride);
    }
  }
}

void OutputRow2(const float* HWY_RESTRICT m, size_t point_stride, size_t tiles, float bias, float lo, float hi,
                float* HWY_RESTRICT rows, size_t stride) {
  const D d;
  const size_t L = hn::Lanes(d);
  const V add = hn::Set(d, bias), vlo = hn::Set(d, lo), vhi = hn::Set(d, hi);
  for (size_t t0 = 0; t0 < tiles; t0 += L) {
    // a<r><j>: A^T across row r of the 4x4 points, column j of the outputs.
    V a00, a01, a10, a11, a20, a21, a30, a31, m0, m1, m2, m3;
    Load4(m + t0, point_stride, m0, m1, m2, m3);
    OutputLine2(m0, m1, m2, m3, a00, a01);
    Load4(m + 4 * point_stride + t0, point_stride, m0, m1, m2, m3);
    OutputLine2(m0, m1, m2, m3, a10, a11);
    Load4(m + 8 * point_stride + t0, point_stride, m0, m1, m2, m3);
    OutputLine2(m0, m1, m2, m3, a20, a21);
    Load4(m + 12 * point_stride + t0, point_stride, m0, m1, m2, m3);
    OutputLine2(m0, m1, m2, m3, a30, a31);
    // y<i><j>: output row i, column j of each tile.
    V y00, y10, y01, y11;
    OutputLine2(a00, a10, a20, a30, y00, y10);
    OutputLine2(a01, a11, a21, a31, y01, y11);
    hn::StoreInterleaved2(BiasClamp(y00, add, vlo, vhi), BiasClamp(y01, add, vlo, vhi), d, rows + 2 * t0);
    hn::StoreInterleaved2(BiasClamp(y10, add, vlo, vhi), BiasClamp(y11, add, vlo, vhi), d, rows + stride + 2 * t0);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu::simd {

HWY_EXPORT(InputRow4);
HWY_EXPORT(OutputRow4);
HWY_EXPORT(InputRow2);
HWY_EXPORT(OutputRow2);

void winograd_input_row(int tile, const float* rows, size_t stride, size_t tiles, float* scratch, float* out,
                        size_t point_stride) {
  assert(tile == 2 || tile == 4);
  if (tile == 4) {
    HWY_DYNAMIC_DISPATCH(InputRow4)(rows, stride, tiles, scratch, out, point_stride);
  } else {
    HWY_DYNAMIC_DISPATCH(InputRow2)(rows, stride, tiles, scratch, out, point_stride);
  }
}

void winograd_output_row(int tile, const float* m, size_t point_stride, size_t tiles, float bias, float lo, float hi,
                         float* rows, size_t stride) {
  assert(tile == 2 || tile == 4);
  if (tile == 4) {
    HWY_DYNAMIC_DISPATCH(OutputRow4)(m, point_stride, tiles, bias, lo, hi, rows, stride);
  } else {
    HWY_DYNAMIC_DISPATCH(OutputRow2)(m, point_stride, tiles, bias, lo, hi, rows, stride);
  }
}

}  // namespace mote::cpu::simd
#endif  // HWY_ONCE
