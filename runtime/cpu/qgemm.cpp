// SIMD body of qgemm.hpp, compiled once per instruction set by Highway's
// foreach_target.h; the HWY_ONCE section dispatches at run time.
// AVX3_DL (Ice Lake, Zen 4 and later: VNNI) is compiled for this file only:
// its kQuads kernel is what makes int8 pay on x86.
#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/qgemm.cpp"
#include "hwy/foreach_target.h"  // must come before highway.h

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>  // getauxval: the core's dot-product instructions
#endif

#include "hwy/highway.h"
#include "runtime/cpu/qgemm.hpp"
#include "runtime/cpu/qrequantize-inl.h"

#ifndef MOTE_INLINE_LAMBDA
#if defined(__GNUC__) || defined(__clang__)
#define MOTE_INLINE_LAMBDA __attribute__((always_inline))
#else
#define MOTE_INLINE_LAMBDA
#endif
#endif

HWY_BEFORE_NAMESPACE();
namespace mote::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D32 = hn::ScalableTag<int32_t>;
using DF = hn::Repartition<float, D32>;
using V32 = hn::Vec<D32>;

// How far A's values may reach for kQuads on this target (qgemm_format):
// VNNI takes any int8; x86 without it multiplies byte pairs (pmaddubsw, into
// int16 that saturates) and widens them (pmaddwd), exact while two products
// of up to 255 * 64 fit int16; arm64's NEON takes any int8 where the core
// has the dot-product instructions (sdot: Armv8.2's optional DotProd, in
// Cortex-A55/A75 and later, Jetson Xavier and Orin), which multiply int8 by
// int8, so B's bytes are read signed there (QgemmQuadsSignedB); elsewhere int16
// pairs only.
#if HWY_TARGET == HWY_AVX3_DL
#define MOTE_QGEMM_QUADS 2
constexpr int32_t kQuadsLimit = 128;
#elif HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_SSSE3
#define MOTE_QGEMM_QUADS 1
constexpr int32_t kQuadsLimit = 64;
#elif HWY_TARGET == HWY_NEON && HWY_ARCH_ARM_A64 && defined(__linux__)
#define MOTE_QGEMM_QUADS 3
constexpr int32_t kQuadsLimit = 128;
#else
#define MOTE_QGEMM_QUADS 0
constexpr int32_t kQuadsLimit = 0;
#endif

#if MOTE_QGEMM_QUADS == 3
// Highway 1.0 has no target with the dot-product instructions: the NEON
// target runs sdot where the kernel reports them (HWCAP_ASIMDDP).
bool CoreHasDotProduct() {
  static const bool has = (getauxval(AT_HWCAP) & (1UL << 20)) != 0;  // HWCAP_ASIMDDP
  return has;
}
int32_t QgemmQuadsLimit() { return CoreHasDotProduct() ? kQuadsLimit : 0; }
bool QgemmQuadsSignedB() { return CoreHasDotProduct(); }
#else
int32_t QgemmQuadsLimit() { return kQuadsLimit; }
bool QgemmQuadsSignedB() { return false; }
#endif

#if HWY_TARGET == HWY_SCALAR
// One lane holds no pair of int16: plain loops.
int64_t QgemmColumnStep() { return 1; }

template <QgemmFormat kFormat, class T>
void QgemmT(const int32_t* packed_a, int64_t rows, int64_t pairs, const int32_t* b, int64_t cols,
            const QRequantize& rq, T* y, int64_t ldy) {
  static_assert(kFormat == QgemmFormat::kPairs, "no kQuads without VNNI");
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t* panel = packed_a + (r / kQgemmPanelRows) * pairs * kQgemmPanelRows;
    for (int64_t n = 0; n < cols; ++n) {
      int32_t sum = rq.bias ? rq.bias[r] : 0;
      for (int64_t k = 0; k < pairs; ++k) {
        const auto* a = reinterpret_cast<const int16_t*>(panel + k * kQgemmPanelRows + r % kQgemmPanelRows);
        const auto* x = reinterpret_cast<const int16_t*>(b + qgemm_b_index(n, k, pairs, 1));  // step 1
        sum += int32_t{a[0]} * x[0] + int32_t{a[1]} * x[1];
      }
      if constexpr (std::is_same_v<T, int32_t>) {
        y[r * ldy + n] = sum;  // an int32 output: the sum itself
      } else {
        const float scaled = static_cast<float>(sum) * rq.multiplier[r] + residual_term(rq, r * ldy + n);
        const float v = std::min(std::max(store_activation(rq, scaled), rq.lo), rq.hi);
        y[r * ldy + n] = static_cast<T>(static_cast<int32_t>(std::nearbyint(v)) + rq.zero);
      }
    }
  }
}

template <class T>
void RequantizeRowT(const float* sums, int64_t n, int32_t bias, float multiplier, const QRequantize& rq, T* y) {
  for (int64_t i = 0; i < n; ++i) {
    const int32_t sum = static_cast<int32_t>(sums[i]) + bias;
    const float v = std::min(
        std::max(store_activation(rq, static_cast<float>(sum) * multiplier + residual_term(rq, i)), rq.lo), rq.hi);
    y[i] = static_cast<T>(static_cast<int32_t>(std::nearbyint(v)) + rq.zero);
  }
}
#else
using qrequantize::HWY_NAMESPACE::StoreRow;

int64_t QgemmColumnStep() { return 2 * static_cast<int64_t>(hn::Lanes(D32())); }

// sum += the products of one lane group: two int16 pairs (kPairs) or four
// bytes (kQuads: u8 x i8 on x86, i8 x i8 with arm64's sdot). `t` is the
// second accumulator ReorderWidenMulAccumulate may use (odd products on
// some targets); kQuads leaves it alone (Sums).
template <QgemmFormat kFormat>
HWY_INLINE V32 MulAdd(D32 d, V32 a, V32 b, V32 sum, V32& t) {
#if MOTE_QGEMM_QUADS
  if constexpr (kFormat == QgemmFormat::kQuads) {
    (void)d;
    (void)t;
#if HWY_TARGET == HWY_AVX3_DL
    return V32{qrequantize::HWY_NAMESPACE::DotQuads(sum.raw, b.raw, a.raw)};
#elif HWY_TARGET == HWY_AVX3
    const __m512i pairs = _mm512_maddubs_epi16(b.raw, a.raw);
    return V32{_mm512_add_epi32(sum.raw, _mm512_madd_epi16(pairs, _mm512_set1_epi16(1)))};
#elif HWY_TARGET == HWY_AVX2
    const __m256i pairs = _mm256_maddubs_epi16(b.raw, a.raw);
    return V32{_mm256_add_epi32(sum.raw, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)))};
#elif MOTE_QGEMM_QUADS == 3 && defined(__ARM_FEATURE_DOTPROD)
    // sdot: each int32 lane plus the four products of its int8 bytes (a
    // build for cores that all have it: the intrinsic).
    return V32{vdotq_s32(sum.raw, vreinterpretq_s8_s32(b.raw), vreinterpretq_s8_s32(a.raw))};
#elif MOTE_QGEMM_QUADS == 3
    // sdot in assembly: the baseline build (armv8-a, as Debian's) cannot
    // call the intrinsic outside a function compiled for armv8.2-a, which
    // Highway's inlined ops are not. The assembler is told of the extension
    // by an .arch (binutils 2.40 does not take .arch_extension dotprod for
    // it) that keeps the NEON target's crypto; it stays in force for the
    // rest of the file, a superset of the armv8-a code the compiler emits.
    // The kernel runs only where the core has sdot (QgemmQuadsLimit).
    int32x4_t acc = sum.raw;
    __asm__(".arch armv8.2-a+crypto+dotprod\n\tsdot %0.4s, %1.16b, %2.16b"
            : "+w"(acc)
            : "w"(vreinterpretq_s8_s32(b.raw)), "w"(vreinterpretq_s8_s32(a.raw)));
    return V32{acc};
#else
    const __m128i pairs = _mm_maddubs_epi16(b.raw, a.raw);
    return V32{_mm_add_epi32(sum.raw, _mm_madd_epi16(pairs, _mm_set1_epi16(1)))};
#endif
  }
#endif
  const hn::Repartition<int16_t, D32> d16;
  return hn::ReorderWidenMulAccumulate(d, hn::BitCast(d16, a), hn::BitCast(d16, b), sum, t);
}

// The sums of a MulAdd chain: kPairs' two accumulators rearranged and
// added (on arm64 a pairwise add of the two, which would halve a kQuads
// sum's lanes: kQuads keeps one accumulator).
template <QgemmFormat kFormat>
HWY_INLINE V32 Sums(V32 sum, V32 t) {
  if constexpr (kFormat == QgemmFormat::kQuads) {
    (void)t;
    return sum;
  } else {
    return hn::RearrangeToOddPlusEven(sum, t);
  }
}

// Rows of A per tile: 8 where the target has 32 vector registers (AVX-512:
// 16 accumulators, two loads of B per 16 products; on a Zen 5 core
// mote_microbench's Qgemm shapes ran 8-10 % faster than with 4 rows, 88-93 %
// of its measured 568 GMAC/s vpdpbusd peak), else 4 (AVX2 has 16
// registers; kPairs on arm64 keeps a second accumulator per sum).
#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3
constexpr int kTileRows = 8;
#else
constexpr int kTileRows = 4;
#endif
static_assert(kQgemmPanelRows % kTileRows == 0, "a tile reads whole rows of one panel");

// kRows rows of one panel (A's lanes for depth group k of those rows at
// a + k * kQgemmPanelRows) times kVectors vectors of columns from n0 on
// (two: a whole panel of B; one: its first half, for a last panel of no more
// columns or of one vector and the columns PanelColumns takes); rows past
// `rows` are computed from the panel's zero padding and not stored. The
// accumulators are named, not arrays: SVE vectors cannot live in arrays;
// rows 4-7 exist only when kRows is 8, and the second vector's only when
// kVectors is 2 (the compiler drops the rest).
template <QgemmFormat kFormat, int kRows, int kVectors, class T>
HWY_INLINE void Tile(const int32_t* HWY_RESTRICT a, int64_t rows, int64_t groups, const int32_t* HWY_RESTRICT b,
                     int64_t n0, int64_t cols, const QRequantize& rq, int64_t row0, T* HWY_RESTRICT y, int64_t ldy,
                     const char* prefetch = nullptr) {
  static_assert(kRows == 4 || kRows == 8, "tiles of 4 or 8 rows");
  const D32 d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  V32 s00 = hn::Zero(d), s01 = s00, s10 = s00, s11 = s00, s20 = s00, s21 = s00, s30 = s00, s31 = s00;
  V32 t00 = s00, t01 = s00, t10 = s00, t11 = s00, t20 = s00, t21 = s00, t30 = s00, t31 = s00;
  V32 s40 = s00, s41 = s00, s50 = s00, s51 = s00, s60 = s00, s61 = s00, s70 = s00, s71 = s00;
  V32 t40 = s00, t41 = s00, t50 = s00, t51 = s00, t60 = s00, t61 = s00, t70 = s00, t71 = s00;
  const int32_t* HWY_RESTRICT b_panel = b + n0 * groups;  // n0 is a multiple of the panel width
  for (int64_t k = 0; k < groups; ++k) {
    // One cache line of the next panel of A every other group (a group of
    // a panel is 32 bytes).
    if (prefetch && (k & 1) == 0) __builtin_prefetch(prefetch + k * kQgemmPanelRows * sizeof(int32_t));
    const int32_t* HWY_RESTRICT bk = b_panel + k * 2 * lanes;
    const V32 b0 = hn::LoadU(d, bk);
    const V32 b1 = kVectors == 2 ? hn::LoadU(d, bk + lanes) : b0;
    const int32_t* HWY_RESTRICT ak = a + k * kQgemmPanelRows;
    const V32 a0 = hn::Set(d, ak[0]);
    s00 = MulAdd<kFormat>(d, a0, b0, s00, t00);
    if constexpr (kVectors == 2) s01 = MulAdd<kFormat>(d, a0, b1, s01, t01);
    const V32 a1 = hn::Set(d, ak[1]);
    s10 = MulAdd<kFormat>(d, a1, b0, s10, t10);
    if constexpr (kVectors == 2) s11 = MulAdd<kFormat>(d, a1, b1, s11, t11);
    const V32 a2 = hn::Set(d, ak[2]);
    s20 = MulAdd<kFormat>(d, a2, b0, s20, t20);
    if constexpr (kVectors == 2) s21 = MulAdd<kFormat>(d, a2, b1, s21, t21);
    const V32 a3 = hn::Set(d, ak[3]);
    s30 = MulAdd<kFormat>(d, a3, b0, s30, t30);
    if constexpr (kVectors == 2) s31 = MulAdd<kFormat>(d, a3, b1, s31, t31);
    if constexpr (kRows == 8) {
      const V32 a4 = hn::Set(d, ak[4]);
      s40 = MulAdd<kFormat>(d, a4, b0, s40, t40);
      if constexpr (kVectors == 2) s41 = MulAdd<kFormat>(d, a4, b1, s41, t41);
      const V32 a5 = hn::Set(d, ak[5]);
      s50 = MulAdd<kFormat>(d, a5, b0, s50, t50);
      if constexpr (kVectors == 2) s51 = MulAdd<kFormat>(d, a5, b1, s51, t51);
      const V32 a6 = hn::Set(d, ak[6]);
      s60 = MulAdd<kFormat>(d, a6, b0, s60, t60);
      if constexpr (kVectors == 2) s61 = MulAdd<kFormat>(d, a6, b1, s61, t61);
      const V32 a7 = hn::Set(d, ak[7]);
      s70 = MulAdd<kFormat>(d, a7, b0, s70, t70);
      if constexpr (kVectors == 2) s71 = MulAdd<kFormat>(d, a7, b1, s71, t71);
    }
  }
  const int64_t left = cols - n0;
  // Inlined by force: a lambda does not inherit the tile's always_inline,
  // and GCC called this one, passing every sum through the stack, once the
  // file held a second tile width (MobileNetV2's 112x112 1x1 layers took
  // twice as long).
  auto store = [&](int64_t r, V32 sum0, V32 t0, V32 sum1, V32 t1) MOTE_INLINE_LAMBDA {
    if (r >= rows) return;
    const int64_t row = row0 + r;
    const int32_t bias = rq.bias ? rq.bias[row] : 0;
    T* out = y + row * ldy + n0;
    // Residuals are one byte each, laid out as y.
    const uint8_t* res = rq.residual ? static_cast<const uint8_t*>(rq.residual) + row * ldy + n0 : nullptr;
    StoreRow(d, Sums<kFormat>(sum0, t0), bias, rq.multiplier[row], rq, res, out, left);
    if (kVectors == 2 && left > lanes) {
      StoreRow(d, Sums<kFormat>(sum1, t1), bias, rq.multiplier[row], rq, res ? res + lanes : nullptr, out + lanes,
               left - lanes);
    }
  };
  store(0, s00, t00, s01, t01);
  store(1, s10, t10, s11, t11);
  store(2, s20, t20, s21, t21);
  store(3, s30, t30, s31, t31);
  if constexpr (kRows == 8) {
    store(4, s40, t40, s41, t41);
    store(5, s50, t50, s51, t51);
    store(6, s60, t60, s61, t61);
    store(7, s70, t70, s71, t71);
  }
}

// One row's sum requantised and stored as StoreRow stores a lane (the same
// float operations, the residual's multiply-add fused as there; a fused
// HardSwish or SiLU in its scalar form, which may round a near-tie the
// other way).
HWY_INLINE void StoreOne(int32_t sum, int32_t bias, float, const QRequantize&, const uint8_t*, int32_t* out) {
  *out = sum + bias;  // an int32 output: nothing requantised
}

template <class T>
HWY_INLINE void StoreOne(int32_t sum, int32_t bias, float multiplier, const QRequantize& rq, const uint8_t* residual,
                         T* out) {
  float v = static_cast<float>(sum + bias) * multiplier;
  if (residual) {
    const int32_t r = rq.residual_dtype == DType::I8 ? int32_t{static_cast<int8_t>(*residual)} : int32_t{*residual};
    v = std::fma(static_cast<float>(r - rq.residual_zero), rq.residual_multiplier, v);
  }
  v = std::min(std::max(store_activation(rq, v), rq.lo), rq.hi);
  *out = static_cast<T>(static_cast<int32_t>(std::nearbyint(v)) + rq.zero);
}

// Columns [c0, c1) of the product for the rows of one panel (A's lanes
// for group k at a + k * kQgemmPanelRows; rows_here of them, from row0),
// one column at a time: a tile would compute a vector wide. With 16 lanes a
// vector holds two depth groups of the panel's 8 rows (A's lanes as packed)
// against each group's quad of the column broadcast to its half; the halves
// are added at the end. kQuads on AVX-512 only. Serves products of at most
// kColumnProductMax columns (a classifier's Gemm run as a 1x1 convolution:
// one column per image; MobileNetV2's 1280 -> 1000 head took 0.064 ms a
// vector wide, about its f32 time) and the columns a last panel has past
// one vector (7x7 images: 49 = 32 + 16 + 1).
#if MOTE_QGEMM_QUADS && (HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3)
constexpr int64_t kColumnProductMax = 2;

// Column c's quad of group k is columns[(c - c0) * c_stride + k * k_stride].
template <QgemmFormat kFormat, class T>
HWY_INLINE void PanelColumns(const int32_t* HWY_RESTRICT a, int64_t rows_here, int64_t row0, int64_t groups,
                             const int32_t* HWY_RESTRICT columns, int64_t c_stride, int64_t k_stride, int64_t c0,
                             int64_t c1, const QRequantize& rq, T* HWY_RESTRICT y, int64_t ldy) {
  static_assert(kQgemmPanelRows == 8, "two depth groups of a panel per 16 lanes");
  const D32 d;
  const hn::Half<D32> dh;
  const auto lower = hn::FirstN(d, kQgemmPanelRows);
  for (int64_t c = c0; c < c1; ++c) {
    const int32_t* HWY_RESTRICT column = columns + (c - c0) * c_stride;  // group k at column[k * k_stride]
    // Four sums: one would wait on each vpdpbusd's latency.
    V32 sum0 = hn::Zero(d), sum1 = sum0, sum2 = sum0, sum3 = sum0, unused = sum0;
    auto pair = [&](int64_t k, V32 acc) MOTE_INLINE_LAMBDA {
      const V32 quads =
          hn::IfThenElse(lower, hn::Set(d, column[k * k_stride]), hn::Set(d, column[(k + 1) * k_stride]));
      return MulAdd<kFormat>(d, hn::LoadU(d, a + k * kQgemmPanelRows), quads, acc, unused);
    };
    int64_t k = 0;
    for (; k + 8 <= groups; k += 8) {
      sum0 = pair(k, sum0);
      sum1 = pair(k + 2, sum1);
      sum2 = pair(k + 4, sum2);
      sum3 = pair(k + 6, sum3);
    }
    for (; k + 2 <= groups; k += 2) sum0 = pair(k, sum0);
    if (k < groups) {
      // One group left: its rows in the lower half, the upper half zero
      // (a masked load: the panel ends with this group).
      const V32 lanes = hn::MaskedLoad(lower, d, a + k * kQgemmPanelRows);
      sum1 = MulAdd<kFormat>(d, lanes, hn::Set(d, column[k * k_stride]), sum1, unused);
    }
    const V32 sum = hn::Add(hn::Add(sum0, sum1), hn::Add(sum2, sum3));
    HWY_ALIGN int32_t sums[kQgemmPanelRows];
    hn::Store(hn::Add(hn::LowerHalf(dh, sum), hn::UpperHalf(dh, sum)), dh, sums);
    for (int64_t r = 0; r < rows_here; ++r) {
      const int64_t row = row0 + r;
      const auto* residual = rq.residual ? static_cast<const uint8_t*>(rq.residual) + row * ldy + c : nullptr;
      StoreOne(sums[r], rq.bias ? rq.bias[row] : 0, rq.multiplier[row], rq, residual, y + row * ldy + c);
    }
  }
}

template <QgemmFormat kFormat, class T>
HWY_NOINLINE void ColumnProducts(const int32_t* HWY_RESTRICT packed_a, int64_t rows, int64_t groups,
                                 const int32_t* HWY_RESTRICT b, int64_t cols, const QRequantize& rq,
                                 T* HWY_RESTRICT y, int64_t ldy) {
  // The columns of B's first panel: group k of column c at b[k * step + c].
  const int64_t step = QgemmColumnStep();
  for (int64_t row0 = 0; row0 < rows; row0 += kQgemmPanelRows) {
    PanelColumns<kFormat>(packed_a + row0 * groups, std::min<int64_t>(kQgemmPanelRows, rows - row0), row0, groups, b,
                          1, step, 0, cols, rq, y, ldy);
  }
}
#else
constexpr int64_t kColumnProductMax = 0;

template <QgemmFormat kFormat, class T>
void PanelColumns(const int32_t*, int64_t, int64_t, int64_t, const int32_t*, int64_t, int64_t, int64_t, int64_t,
                  const QRequantize&, T*, int64_t) {}
template <QgemmFormat kFormat, class T>
void ColumnProducts(const int32_t*, int64_t, int64_t, const int32_t*, int64_t, const QRequantize&, T*, int64_t) {}
#endif

template <QgemmFormat kFormat, class T>
void QgemmT(const int32_t* packed_a, int64_t rows, int64_t groups, const int32_t* b, int64_t cols,
            const QRequantize& rq, T* y, int64_t ldy) {
  const int64_t step = QgemmColumnStep();
  if (kFormat == QgemmFormat::kQuads && cols <= kColumnProductMax) {
    return ColumnProducts<kFormat>(packed_a, rows, groups, b, cols, rq, y, ldy);
  }
  // A last panel of one vector and a column or two computes the vector,
  // then the columns one at a time (7x7 images: 49 columns = 32 + 16 + 1,
  // where a second vector computed 16 lanes for one). Those columns are
  // copied out of B first, each group after the other: read in place, a
  // column's groups lie a panel row (128 bytes) apart, a cache line each,
  // and the one column took a sixth of a 7x7 layer's time.
  const int64_t last_panel = (cols - 1) / step * step, extra0 = last_panel + step / 2;
  const bool extra_columns = kFormat == QgemmFormat::kQuads && cols > extra0 && cols - extra0 <= kColumnProductMax;
  const int32_t* extra = nullptr;
  if constexpr (kColumnProductMax > 0) {
    thread_local std::vector<int32_t> copy;
    if (extra_columns) {
      copy.resize(static_cast<size_t>((cols - extra0) * groups));
      for (int64_t c = extra0; c < cols; ++c) {
        for (int64_t k = 0; k < groups; ++k)
          copy[static_cast<size_t>((c - extra0) * groups + k)] = b[qgemm_b_index(c, k, groups, step)];
      }
      extra = copy.data();
    }
  }
  for (int64_t row0 = 0; row0 < rows; row0 += kTileRows) {
    // This tile's rows within their panel: A's lanes for them start there.
    const int32_t* a = packed_a + (row0 / kQgemmPanelRows) * groups * kQgemmPanelRows + row0 % kQgemmPanelRows;
    const int64_t tile_rows = std::min<int64_t>(kTileRows, rows - row0);
    // The next panel of A, fetched a line every other depth group while
    // this one meets its first panel of B, where it meets two or more: a
    // deep layer's weights come from DRAM (ResNet-18's are 11 MB), and the
    // hardware prefetchers alone left its 7x7 layers (2.4 MB of weights
    // each) slower. layer4.1.conv2 at 1 thread (mote-bench per op): 0.48 ms
    // without, 0.42 with the whole panel prefetched before the loop (a
    // burst of 576 prefetches), 0.33 with them spread over it.
    const char* next = nullptr;
    if (row0 % kQgemmPanelRows == 0 && row0 + kQgemmPanelRows < rows && cols > step) {
      next = reinterpret_cast<const char*>(packed_a + (row0 / kQgemmPanelRows + 1) * groups * kQgemmPanelRows);
    }
    for (int64_t n0 = 0; n0 < cols; n0 += step) {
      // A last panel of at most one vector of columns computes only that:
      // ResNet-18's and MobileNetV2's 14x14 layers (196 columns) end in a
      // panel of 4 of 32.
      if (cols - n0 <= step / 2) {
        Tile<kFormat, kTileRows, 1>(a, tile_rows, groups, b, n0, cols, rq, row0, y, ldy);
      } else if (n0 == last_panel && extra_columns) {
        static_assert(kColumnProductMax == 0 || kTileRows == kQgemmPanelRows, "a tile is one panel of A");
        Tile<kFormat, kTileRows, 1>(a, tile_rows, groups, b, n0, extra0, rq, row0, y, ldy);
        PanelColumns<kFormat>(a, tile_rows, row0, groups, extra, groups, 1, extra0, cols, rq, y, ldy);
      } else {
        Tile<kFormat, kTileRows, 2>(a, tile_rows, groups, b, n0, cols, rq, row0, y, ldy, n0 == 0 ? next : nullptr);
      }
    }
  }
}

// Sums held exactly in floats (the depthwise kernel's), a vector at a time
// through the GEMM's own store; the last partial vector through a buffer,
// since `sums` may end right after n.
template <class T>
void RequantizeRowT(const float* sums, int64_t n, int32_t bias, float multiplier, const QRequantize& rq, T* y) {
  const D32 d;
  const DF df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto* residual = static_cast<const uint8_t*>(rq.residual);
  for (int64_t i = 0; i < n; i += lanes) {
    hn::Vec<DF> v;
    if (n - i >= lanes) {
      v = hn::LoadU(df, sums + i);
    } else {
      HWY_ALIGN float tail[hn::MaxLanes(df)] = {};
      std::memcpy(tail, sums + i, static_cast<size_t>(n - i) * sizeof(float));
      v = hn::Load(df, tail);
    }
    StoreRow(d, hn::ConvertTo(d, v), bias, multiplier, rq, residual ? residual + i : nullptr, y + i, n - i);
  }
}
#endif  // HWY_TARGET == HWY_SCALAR

void RequantizeRow(const float* sums, int64_t n, int32_t bias, float multiplier, const QRequantize& rq, void* y) {
  if (rq.dtype == DType::I8) {
    RequantizeRowT(sums, n, bias, multiplier, rq, static_cast<int8_t*>(y));
  } else {
    RequantizeRowT(sums, n, bias, multiplier, rq, static_cast<uint8_t*>(y));
  }
}

// Lanes of columns [n, n + count) of depth group k: `kRows` rows of T
// (four uint8 or two uint16) packed lowest row first.
template <int kRows, class T>
void InterleaveScalar(const QgemmGroupRows& src, int64_t n, int64_t count, int64_t k, int64_t groups, int64_t step,
                      int32_t* b) {
  for (int64_t c = n; c < n + count; ++c) {
    uint32_t lane = 0;
    for (int i = 0; i < kRows; ++i) {
      const bool padded = src.pad_masks[i] && src.pad_masks[i][c];
      const T v = padded ? static_cast<T>(src.pad) : static_cast<const T*>(src.rows[i])[c];
      lane |= static_cast<uint32_t>(v) << (8 * sizeof(T) * i);
    }
    b[qgemm_b_index(c, k, groups, step)] = static_cast<int32_t>(lane);
  }
}

// Scalable vectors (SVE, RVV) keep the plain loop: the 128-bit zips below
// are written for fixed-width registers. Four consecutive columns from a
// multiple of four never straddle a panel (step is a multiple of 8), so each
// 128-bit result is stored whole.
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 || \
    HWY_TARGET == HWY_SVE2_128 || HWY_TARGET == HWY_RVV
#define MOTE_QGEMM_ZIP_INTERLEAVE 0
#else
#define MOTE_QGEMM_ZIP_INTERLEAVE 1
#endif

#if MOTE_QGEMM_ZIP_INTERLEAVE
// The rows of one depth group as local pointers (the caller's struct might
// alias b for all the compiler knows, and it reloaded every pointer after
// each store) and one 128-bit zip step over them.
template <class T>
struct GroupRows {
  const T* HWY_RESTRICT rows[4];
  const uint8_t* HWY_RESTRICT masks[4];
  bool masked;  // any row has a mask
};

template <class T>
GroupRows<T> LocalRows(const QgemmGroupRows& src, int count) {
  GroupRows<T> g{};
  for (int i = 0; i < count; ++i) {
    g.rows[i] = static_cast<const T*>(src.rows[i]);
    g.masks[i] = src.pad_masks[i];
    g.masked = g.masked || src.pad_masks[i];
  }
  return g;
}

// Row i's 128 bits at column n, its masked columns replaced by `pad`
// (kMasked: some row of the group has a mask).
template <bool kMasked, class D>
HWY_INLINE hn::Vec<D> LoadGroupRow(D d, const GroupRows<hn::TFromD<D>>& g, int i, hn::Vec<D> pad, int64_t n) {
  using T = hn::TFromD<D>;
  const auto v = hn::LoadU(d, g.rows[i] + n);
  if (!kMasked || !g.masks[i]) return v;
  // One mask byte per column, widened to the row's lane size.
  const hn::Rebind<uint8_t, D> d8;
  const auto bytes = hn::LoadU(d8, g.masks[i] + n);
  if constexpr (sizeof(T) == 1) {
    return hn::IfThenElse(hn::Ne(bytes, hn::Zero(d8)), pad, v);
  } else {
    const hn::RebindToUnsigned<D> du;
    return hn::IfThenElse(hn::RebindMask(d, hn::Ne(hn::PromoteTo(du, bytes), hn::Zero(du))), pad, v);
  }
}

// The four rows of a depth group at column n zipped into quads within each
// 128-bit block: q[0] holds the block's columns 0..3, q[1] 4..7, q[2] 8..11,
// q[3] 12..15.
template <bool kMasked, class D>
HWY_INLINE void ZipBlockQuads(D d8, const GroupRows<uint8_t>& g, hn::Vec<D> pad, int64_t n,
                              hn::Vec<hn::Repartition<uint32_t, D>> (&q)[4]) {
  const hn::Repartition<uint16_t, D> d16;
  const hn::Repartition<uint32_t, D> du32;
  const auto r0 = LoadGroupRow<kMasked>(d8, g, 0, pad, n), r1 = LoadGroupRow<kMasked>(d8, g, 1, pad, n);
  const auto r2 = LoadGroupRow<kMasked>(d8, g, 2, pad, n), r3 = LoadGroupRow<kMasked>(d8, g, 3, pad, n);
  const auto lo01 = hn::ZipLower(d16, r0, r1), hi01 = hn::ZipUpper(d16, r0, r1);
  const auto lo23 = hn::ZipLower(d16, r2, r3), hi23 = hn::ZipUpper(d16, r2, r3);
  q[0] = hn::ZipLower(du32, lo01, lo23);
  q[1] = hn::ZipUpper(du32, lo01, lo23);
  q[2] = hn::ZipLower(du32, hi01, hi23);
  q[3] = hn::ZipUpper(du32, hi01, hi23);
}

#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3
// 64 columns a step on AVX-512: the zips work within 128-bit blocks, so the
// four results hold columns 16j..16j+3, +4..7, +8..11 and +12..15 in their
// block j, and a 4x4 transpose of blocks (eight vshufi64x2) puts 16
// consecutive columns in each. A third of the instructions of four 16-column
// steps: the interleave was 15 % of an int8 3x3 layer on 56x56 (perf).
// Returns where it stopped.
template <bool kMasked>
int64_t ZipQuads64(const GroupRows<uint8_t>& g, uint8_t pad_value, int64_t width, int64_t k, int64_t groups,
                   int64_t step, int32_t* HWY_RESTRICT b) {
  const hn::ScalableTag<uint8_t> d8;
  const auto pad = hn::Set(d8, pad_value);
  int64_t n = 0;
  for (; n + 64 <= width; n += 64) {
    hn::Vec<hn::Repartition<uint32_t, decltype(d8)>> q[4];
    ZipBlockQuads<kMasked>(d8, g, pad, n, q);
    const __m512i a = q[0].raw, bq = q[1].raw, c = q[2].raw, dq = q[3].raw;
    const __m512i t0 = _mm512_shuffle_i64x2(a, bq, 0x44), t1 = _mm512_shuffle_i64x2(c, dq, 0x44);
    const __m512i t2 = _mm512_shuffle_i64x2(a, bq, 0xEE), t3 = _mm512_shuffle_i64x2(c, dq, 0xEE);
    _mm512_storeu_si512(b + qgemm_b_index(n, k, groups, step), _mm512_shuffle_i64x2(t0, t1, 0x88));
    _mm512_storeu_si512(b + qgemm_b_index(n + 16, k, groups, step), _mm512_shuffle_i64x2(t0, t1, 0xDD));
    _mm512_storeu_si512(b + qgemm_b_index(n + 32, k, groups, step), _mm512_shuffle_i64x2(t2, t3, 0x88));
    _mm512_storeu_si512(b + qgemm_b_index(n + 48, k, groups, step), _mm512_shuffle_i64x2(t2, t3, 0xDD));
  }
  return n;
}
#endif

// Columns [n, width) in steps of 16 (quads; ZipPairs: 8 for pairs); returns
// where it stopped. The first and second half of a step go to their own
// places: a panel of 8 columns (SSSE3, SSE4, NEON) ends in the middle,
// wider ones do not.
template <bool kMasked>
int64_t ZipQuads(const GroupRows<uint8_t>& g, uint8_t pad_value, int64_t n, int64_t width, int64_t k, int64_t groups,
                 int64_t step, int32_t* HWY_RESTRICT b) {
  const hn::FixedTag<uint8_t, 16> d8;
  const hn::Repartition<int32_t, decltype(d8)> di32;
  const auto pad = hn::Set(d8, pad_value);
  for (; n + 16 <= width; n += 16) {
    hn::Vec<hn::Repartition<uint32_t, decltype(d8)>> q[4];
    ZipBlockQuads<kMasked>(d8, g, pad, n, q);
    int32_t* HWY_RESTRICT first = b + qgemm_b_index(n, k, groups, step);
    int32_t* HWY_RESTRICT second = b + qgemm_b_index(n + 8, k, groups, step);
    hn::StoreU(hn::BitCast(di32, q[0]), di32, first);
    hn::StoreU(hn::BitCast(di32, q[1]), di32, first + 4);
    hn::StoreU(hn::BitCast(di32, q[2]), di32, second);
    hn::StoreU(hn::BitCast(di32, q[3]), di32, second + 4);
  }
  return n;
}

template <bool kMasked>
int64_t ZipPairs(const GroupRows<uint16_t>& g, uint16_t pad_value, int64_t width, int64_t k, int64_t groups,
                 int64_t step, int32_t* HWY_RESTRICT b) {
  const hn::FixedTag<uint16_t, 8> d16;
  const hn::Repartition<uint32_t, decltype(d16)> du32;
  const hn::Repartition<int32_t, decltype(d16)> di32;
  const auto pad = hn::Set(d16, pad_value);
  int64_t n = 0;
  for (; n + 8 <= width; n += 8) {
    const auto r0 = LoadGroupRow<kMasked>(d16, g, 0, pad, n), r1 = LoadGroupRow<kMasked>(d16, g, 1, pad, n);
    int32_t* HWY_RESTRICT first = b + qgemm_b_index(n, k, groups, step);
    hn::StoreU(hn::BitCast(di32, hn::ZipLower(du32, r0, r1)), di32, first);
    hn::StoreU(hn::BitCast(di32, hn::ZipUpper(du32, r0, r1)), di32, first + 4);
  }
  return n;
}
#endif

void InterleaveB(QgemmFormat f, const QgemmGroupRows& src, int64_t width, int64_t k, int64_t groups,
                 int32_t* HWY_RESTRICT b) {
  const int64_t step = QgemmColumnStep();
  int64_t n = 0;
  if (f == QgemmFormat::kQuads) {
#if MOTE_QGEMM_ZIP_INTERLEAVE
    const GroupRows<uint8_t> g = LocalRows<uint8_t>(src, 4);
    const auto pad = static_cast<uint8_t>(src.pad);
#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3
    n = g.masked ? ZipQuads64<true>(g, pad, width, k, groups, step, b)
                 : ZipQuads64<false>(g, pad, width, k, groups, step, b);
#endif
    n = g.masked ? ZipQuads<true>(g, pad, n, width, k, groups, step, b)
                 : ZipQuads<false>(g, pad, n, width, k, groups, step, b);
#endif
    InterleaveScalar<4, uint8_t>(src, n, width - n, k, groups, step, b);
  } else {
#if MOTE_QGEMM_ZIP_INTERLEAVE
    const GroupRows<uint16_t> g = LocalRows<uint16_t>(src, 2);
    const auto pad = static_cast<uint16_t>(src.pad);
    n = g.masked ? ZipPairs<true>(g, pad, width, k, groups, step, b)
                 : ZipPairs<false>(g, pad, width, k, groups, step, b);
#endif
    InterleaveScalar<2, uint16_t>(src, n, width - n, k, groups, step, b);
  }
}
#undef MOTE_QGEMM_ZIP_INTERLEAVE

template <QgemmFormat kFormat>
void QgemmFormatted(const int32_t* packed_a, int64_t rows, int64_t groups, const int32_t* b, int64_t cols,
                    const QRequantize& rq, void* y, int64_t ldy) {
  if (rq.dtype == DType::I8) {
    QgemmT<kFormat>(packed_a, rows, groups, b, cols, rq, static_cast<int8_t*>(y), ldy);
  } else if (rq.dtype == DType::I32) {
    QgemmT<kFormat>(packed_a, rows, groups, b, cols, rq, static_cast<int32_t*>(y), ldy);
  } else {
    QgemmT<kFormat>(packed_a, rows, groups, b, cols, rq, static_cast<uint8_t*>(y), ldy);
  }
}

// `f` is one of this target's formats (the caller asked qgemm_format()).
void Qgemm(QgemmFormat f, const int32_t* packed_a, int64_t rows, int64_t groups, const int32_t* b, int64_t cols,
           const QRequantize& rq, void* y, int64_t ldy) {
#if MOTE_QGEMM_QUADS
  if (f == QgemmFormat::kQuads)
    return QgemmFormatted<QgemmFormat::kQuads>(packed_a, rows, groups, b, cols, rq, y, ldy);
#endif
  (void)f;
  QgemmFormatted<QgemmFormat::kPairs>(packed_a, rows, groups, b, cols, rq, y, ldy);
}

#undef MOTE_QGEMM_QUADS

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu {

HWY_EXPORT(QgemmColumnStep);
HWY_EXPORT(QgemmQuadsLimit);
HWY_EXPORT(QgemmQuadsSignedB);
HWY_EXPORT(Qgemm);
HWY_EXPORT(InterleaveB);
HWY_EXPORT(RequantizeRow);

int64_t qgemm_column_step() { return HWY_DYNAMIC_DISPATCH(QgemmColumnStep)(); }

QgemmFormat qgemm_format(int32_t a_min, int32_t a_max) {
  const int32_t limit = HWY_DYNAMIC_DISPATCH(QgemmQuadsLimit)();
  return limit > 0 && a_min >= -limit && a_max < limit ? QgemmFormat::kQuads : QgemmFormat::kPairs;
}

bool qgemm_quads_signed_b() { return HWY_DYNAMIC_DISPATCH(QgemmQuadsSignedB)(); }

void qgemm(QgemmFormat f, const int32_t* packed_a, int64_t rows, int64_t groups, const int32_t* b, int64_t cols,
           const QRequantize& rq, void* y, int64_t ldy) {
  HWY_DYNAMIC_DISPATCH(Qgemm)(f, packed_a, rows, groups, b, cols, rq, y, ldy);
}

void qgemm_requantize_row(const float* sums, int64_t n, int32_t bias, float multiplier, const QRequantize& rq,
                          void* y) {
  HWY_DYNAMIC_DISPATCH(RequantizeRow)(sums, n, bias, multiplier, rq, y);
}

void qgemm_interleave_b(QgemmFormat f, const QgemmGroupRows& src, int64_t width, int64_t k, int64_t groups,
                        int32_t* b) {
  HWY_DYNAMIC_DISPATCH(InterleaveB)(f, src, width, k, groups, b);
}

namespace {

template <class T>
std::vector<int32_t> pack_a(int64_t rows, int64_t depth, const T* a) {
  constexpr int64_t kGroup = 4 / sizeof(T);
  const int64_t groups = (depth + kGroup - 1) / kGroup;
  const int64_t panels = (rows + kQgemmPanelRows - 1) / kQgemmPanelRows;
  std::vector<int32_t> packed(static_cast<size_t>(panels * groups * kQgemmPanelRows), 0);
  for (int64_t r = 0; r < rows; ++r) {
    int32_t* panel = packed.data() + (r / kQgemmPanelRows) * groups * kQgemmPanelRows;
    for (int64_t k = 0; k < depth; ++k) {
      T* lane = reinterpret_cast<T*>(panel + (k / kGroup) * kQgemmPanelRows + r % kQgemmPanelRows);
      lane[k % kGroup] = a[r * depth + k];
    }
  }
  return packed;
}

}  // namespace

std::vector<int32_t> qgemm_pack_a(QgemmFormat f, int64_t rows, int64_t depth, const void* a) {
  if (f == QgemmFormat::kQuads) return pack_a(rows, depth, static_cast<const int8_t*>(a));
  return pack_a(rows, depth, static_cast<const int16_t*>(a));
}

}  // namespace mote::cpu
#endif  // HWY_ONCE
