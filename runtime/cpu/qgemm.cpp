// SIMD body of qgemm.hpp, compiled once per instruction set by Highway's
// foreach_target.h; the HWY_ONCE section dispatches at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/qgemm.cpp"
#include "hwy/foreach_target.h"  // must come before highway.h

#include <algorithm>
#include <cmath>
#include <cstring>

#include "hwy/highway.h"
#include "runtime/cpu/qgemm.hpp"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D32 = hn::ScalableTag<int32_t>;
using D16 = hn::Repartition<int16_t, D32>;
using DF = hn::Repartition<float, D32>;
using V32 = hn::Vec<D32>;

#if HWY_TARGET == HWY_SCALAR
// One lane holds no pair of int16: plain loops.
int64_t QgemmColumnStep() { return 1; }

template <class T>
void QgemmT(const int32_t* packed_a, int64_t rows, int64_t pairs, const int32_t* b, int64_t ldb, int64_t cols,
            const QRequantize& rq, T* y, int64_t ldy) {
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t* panel = packed_a + (r / kQgemmPanelRows) * pairs * kQgemmPanelRows;
    for (int64_t n = 0; n < cols; ++n) {
      int32_t sum = rq.bias ? rq.bias[r] : 0;
      for (int64_t k = 0; k < pairs; ++k) {
        const auto* a = reinterpret_cast<const int16_t*>(panel + k * kQgemmPanelRows + r % kQgemmPanelRows);
        const auto* x = reinterpret_cast<const int16_t*>(b + k * ldb + n);
        sum += int32_t{a[0]} * x[0] + int32_t{a[1]} * x[1];
      }
      const float v = std::min(std::max(static_cast<float>(sum) * rq.multiplier[r], rq.lo), rq.hi);
      y[r * ldy + n] = static_cast<T>(static_cast<int32_t>(std::nearbyint(v)) + rq.zero);
    }
  }
}
#else
int64_t QgemmColumnStep() { return 2 * static_cast<int64_t>(hn::Lanes(D32())); }

// Requantises one vector of sums of row r and stores its first `count`
// columns (all of them when count >= the vector's lanes).
template <class T>
HWY_INLINE void StoreRow(D32 d, V32 sum, int32_t bias, float multiplier, const QRequantize& rq, T* HWY_RESTRICT out,
                         int64_t count) {
  const DF df;
  const hn::Rebind<T, D32> dt;
  auto v = hn::Mul(hn::ConvertTo(df, hn::Add(sum, hn::Set(d, bias))), hn::Set(df, multiplier));
  v = hn::Min(hn::Max(v, hn::Set(df, rq.lo)), hn::Set(df, rq.hi));
  const auto q = hn::DemoteTo(dt, hn::Add(hn::NearestInt(v), hn::Set(d, rq.zero)));
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  if (count >= lanes) {
    hn::StoreU(q, dt, out);
  } else {
    HWY_ALIGN T buffer[hn::MaxLanes(dt)];
    hn::Store(q, dt, buffer);
    std::memcpy(out, buffer, static_cast<size_t>(count) * sizeof(T));
  }
}

// One panel of four rows times two vectors of columns from n0 on. The
// accumulators are named, not arrays: SVE vectors cannot live in arrays.
template <class T>
HWY_INLINE void Tile(const int32_t* HWY_RESTRICT panel, int64_t rows, int64_t pairs, const int32_t* HWY_RESTRICT b,
                     int64_t ldb, int64_t n0, int64_t cols, const QRequantize& rq, int64_t row0, T* HWY_RESTRICT y,
                     int64_t ldy) {
  const D32 d;
  const D16 d16;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  V32 s00 = hn::Zero(d), s01 = s00, s10 = s00, s11 = s00, s20 = s00, s21 = s00, s30 = s00, s31 = s00;
  V32 t00 = s00, t01 = s00, t10 = s00, t11 = s00, t20 = s00, t21 = s00, t30 = s00, t31 = s00;
  for (int64_t k = 0; k < pairs; ++k) {
    const int32_t* HWY_RESTRICT bk = b + k * ldb + n0;
    const auto b0 = hn::BitCast(d16, hn::LoadU(d, bk));
    const auto b1 = hn::BitCast(d16, hn::LoadU(d, bk + lanes));
    const int32_t* HWY_RESTRICT ak = panel + k * kQgemmPanelRows;
    const auto a0 = hn::BitCast(d16, hn::Set(d, ak[0]));
    s00 = hn::ReorderWidenMulAccumulate(d, a0, b0, s00, t00);
    s01 = hn::ReorderWidenMulAccumulate(d, a0, b1, s01, t01);
    const auto a1 = hn::BitCast(d16, hn::Set(d, ak[1]));
    s10 = hn::ReorderWidenMulAccumulate(d, a1, b0, s10, t10);
    s11 = hn::ReorderWidenMulAccumulate(d, a1, b1, s11, t11);
    const auto a2 = hn::BitCast(d16, hn::Set(d, ak[2]));
    s20 = hn::ReorderWidenMulAccumulate(d, a2, b0, s20, t20);
    s21 = hn::ReorderWidenMulAccumulate(d, a2, b1, s21, t21);
    const auto a3 = hn::BitCast(d16, hn::Set(d, ak[3]));
    s30 = hn::ReorderWidenMulAccumulate(d, a3, b0, s30, t30);
    s31 = hn::ReorderWidenMulAccumulate(d, a3, b1, s31, t31);
  }
  const int64_t left = cols - n0;
  auto store = [&](int64_t r, V32 sum0, V32 t0, V32 sum1, V32 t1) {
    if (r >= rows) return;
    const int64_t row = row0 + r;
    const int32_t bias = rq.bias ? rq.bias[row] : 0;
    T* out = y + row * ldy + n0;
    StoreRow(d, hn::RearrangeToOddPlusEven(sum0, t0), bias, rq.multiplier[row], rq, out, left);
    if (left > lanes) {
      StoreRow(d, hn::RearrangeToOddPlusEven(sum1, t1), bias, rq.multiplier[row], rq, out + lanes, left - lanes);
    }
  };
  store(0, s00, t00, s01, t01);
  store(1, s10, t10, s11, t11);
  store(2, s20, t20, s21, t21);
  store(3, s30, t30, s31, t31);
}

template <class T>
void QgemmT(const int32_t* packed_a, int64_t rows, int64_t pairs, const int32_t* b, int64_t ldb, int64_t cols,
            const QRequantize& rq, T* y, int64_t ldy) {
  const int64_t step = QgemmColumnStep();
  for (int64_t row0 = 0; row0 < rows; row0 += kQgemmPanelRows) {
    const int32_t* panel = packed_a + row0 * pairs;
    const int64_t panel_rows = std::min(kQgemmPanelRows, rows - row0);
    for (int64_t n0 = 0; n0 < cols; n0 += step) {
      Tile(panel, panel_rows, pairs, b, ldb, n0, cols, rq, row0, y, ldy);
    }
  }
}

#endif  // HWY_TARGET == HWY_SCALAR

void Qgemm(const int32_t* packed_a, int64_t rows, int64_t pairs, const int32_t* b, int64_t ldb, int64_t cols,
           const QRequantize& rq, void* y, int64_t ldy) {
  if (rq.dtype == DType::I8) {
    QgemmT(packed_a, rows, pairs, b, ldb, cols, rq, static_cast<int8_t*>(y), ldy);
  } else {
    QgemmT(packed_a, rows, pairs, b, ldb, cols, rq, static_cast<uint8_t*>(y), ldy);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu {

HWY_EXPORT(QgemmColumnStep);
HWY_EXPORT(Qgemm);

int64_t qgemm_column_step() { return HWY_DYNAMIC_DISPATCH(QgemmColumnStep)(); }

void qgemm(const int32_t* packed_a, int64_t rows, int64_t depth_pairs, const int32_t* b, int64_t ldb, int64_t cols,
           const QRequantize& rq, void* y, int64_t ldy) {
  HWY_DYNAMIC_DISPATCH(Qgemm)(packed_a, rows, depth_pairs, b, ldb, cols, rq, y, ldy);
}

std::vector<int32_t> qgemm_pack_a(int64_t rows, int64_t depth, const int16_t* a) {
  const int64_t pairs = qgemm_pairs(depth);
  const int64_t panels = (rows + kQgemmPanelRows - 1) / kQgemmPanelRows;
  std::vector<int32_t> packed(static_cast<size_t>(panels * pairs * kQgemmPanelRows), 0);
  for (int64_t r = 0; r < rows; ++r) {
    int32_t* panel = packed.data() + (r / kQgemmPanelRows) * pairs * kQgemmPanelRows;
    for (int64_t k = 0; k < depth; ++k) {
      int16_t* pair = reinterpret_cast<int16_t*>(panel + (k / 2) * kQgemmPanelRows + r % kQgemmPanelRows);
      pair[k % 2] = a[r * depth + k];
    }
  }
  return packed;
}

}  // namespace mote::cpu
#endif  // HWY_ONCE
