// The int8 GEMM behind the quantised kernels: Y = requantise(A B + bias),
// A the weights, B the activations. Depth is packed into int32 lanes in one
// of two formats, chosen per weight matrix by qgemm_format():
//   - kPairs: two int16 per lane, both operands less their zero points; one
//     multiply-add instruction (pmaddwd on x86, smlal on arm64: Highway's
//     ReorderWidenMulAccumulate) does two products per lane. Any int8 data.
//   - kQuads: four bytes per lane, A signed, B unsigned on x86 (u8, or
//     i8 + 128) and signed on arm64 (below). With VNNI, vpdpbusd does four products per lane and the
//     sum in one instruction, twice the products of pmaddwd; A's values less
//     their zero point must fit int8. Other x86 CPUs (AVX2, SSSE3) multiply
//     byte pairs into int16 (pmaddubsw) and add pairs of those (pmaddwd):
//     as many products per multiply instruction as kPairs' pmaddwd, but
//     half the bytes to load and interleave and half the additions (1.2x to
//     1.7x faster on an AVX2 EPYC), exact while A fits [-64, 63] (two
//     products of 255 * 64 fit int16; mote-convert --weight-bits 7 makes
//     such weights). On arm64 cores with the dot-product instructions,
//     sdot does four int8 x int8 products per lane: B's bytes are then
//     read signed (u8 - 128, or i8 as stored; qgemm_quads_signed_b). The
//     zero point of B is taken out through the bias (bias - zero * row sum
//     of A).
// Sums are exact int32.
//
// Layouts (a lane holds `group` consecutive depth values, the first in the
// lowest bits; a depth that is not a multiple ends in zeros of A):
//   packed A: panels of kQgemmPanelRows rows, panel p at
//             p * groups * kQgemmPanelRows, [groups][rows of panel] (missing
//             rows of the last panel are zero);
//   B:        panels of qgemm_column_step() columns, each [groups][step]:
//             column n of group k at qgemm_b_index(n, k, groups, step). The
//             columns of the last panel past `cols` are computed, never
//             stored: any value will do.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "mote/tensor.hpp"
#include "runtime/cpu/tile_activation.hpp"

namespace mote::cpu {

// Eight rows per panel of A: what the widest tile reads (AVX-512's; tiles of
// four rows read half a panel).
inline constexpr int64_t kQgemmPanelRows = 8;

enum class QgemmFormat { kPairs, kQuads };

// The format for an A whose values (less their zero points) lie in
// [a_min, a_max], on the instruction set this CPU runs: kQuads where it
// multiplies such bytes exactly (above), else kPairs.
QgemmFormat qgemm_format(int32_t a_min, int32_t a_max);

// Whether kQuads reads B's bytes as int8 (arm64's sdot, where the core has
// it) rather than uint8 (x86): the conversion adds -128 to uint8 inputs
// there, 128 to int8 ones here, and takes the offset off the bias with the
// zero point. False where kQuads does not run.
bool qgemm_quads_signed_b();

// Whether weights packed in format f (from a range [a_min, a_max], B read
// signed or not) still suit this CPU's instruction set: a kernel's state
// prepared under another one (MOTE_SIMD_TARGET changed since) is packed
// again. int16 pairs run everywhere; only bytes need the instructions.
inline bool qgemm_packing_current(QgemmFormat f, int32_t a_min, int32_t a_max, bool signed_b) {
  return f == QgemmFormat::kPairs ||
         (qgemm_format(a_min, a_max) == QgemmFormat::kQuads && qgemm_quads_signed_b() == signed_b);
}

// kQuads multiplies B + offset, not B less its zero point: the difference,
// times each row's weight sum, comes off the bias. The sums of A's `count`
// rows of `depth` values (less their zero points), kept so that a run whose
// B zero point differs from prepare's (computed per run) can rebase it.
inline std::vector<int64_t> qgemm_row_sums(const int16_t* rows, int64_t count, int64_t depth) {
  std::vector<int64_t> sums(static_cast<size_t>(count));
  for (int64_t r = 0; r < count; ++r) {
    for (int64_t k = 0; k < depth; ++k) sums[static_cast<size_t>(r)] += rows[r * depth + k];
  }
  return sums;
}

// out[r] = bias[r] - delta * row_sums[r] for r < count (a null bias is 0s,
// empty row sums are 0s: kPairs, whose bias keeps no zero point); returns
// out's data.
inline const int32_t* qgemm_rebias(const int32_t* bias, const std::vector<int64_t>& row_sums, int64_t delta,
                                   int64_t count, std::vector<int32_t>& out) {
  out.resize(static_cast<size_t>(count));
  for (int64_t r = 0; r < count; ++r) {
    const int64_t sum = row_sums.empty() ? 0 : row_sums[static_cast<size_t>(r)];
    out[static_cast<size_t>(r)] = static_cast<int32_t>((bias ? bias[r] : 0) - delta * sum);
  }
  return out.data();
}

inline int64_t qgemm_group(QgemmFormat f) { return f == QgemmFormat::kQuads ? 4 : 2; }
inline int64_t qgemm_groups(QgemmFormat f, int64_t depth) { return (depth + qgemm_group(f) - 1) / qgemm_group(f); }

// Packs A [rows][depth] (row-major, already less its zero points): int16
// values for kPairs, int8 for kQuads (`a` points to int16_t or int8_t).
std::vector<int32_t> qgemm_pack_a(QgemmFormat f, int64_t rows, int64_t depth, const void* a);

// Columns per panel of B: what one step of the kernel computes.
int64_t qgemm_column_step();

inline int64_t qgemm_b_index(int64_t n, int64_t k, int64_t groups, int64_t step) {
  return (n / step) * groups * step + k * step + n % step;
}

// The rows of one depth group of B, for qgemm_interleave_b: lane i of
// column n is rows[i][n], or `pad` where pad_masks[i] is set and
// pad_masks[i][n] is nonzero. rows hold uint8 (kQuads) or int16 (kPairs);
// a row may be a slice of a larger plane (the stride-1 convolution reads
// each tap's row in place from a shifted input plane, its masks marking the
// columns whose tap falls in the horizontal padding).
struct QgemmGroupRows {
  const void* rows[4] = {};
  const uint8_t* pad_masks[4] = {};
  int32_t pad = 0;  // uint8 or int16 value, as the rows hold
};

// Writes depth group k of B for columns [0, width) of `src` (width a
// multiple of qgemm_column_step(); every row and mask readable that far),
// interleaved into int32 lanes at b[qgemm_b_index(n, k, groups, step)].
void qgemm_interleave_b(QgemmFormat f, const QgemmGroupRows& src, int64_t width, int64_t k, int64_t groups,
                        int32_t* b);

// How each int32 sum of row r becomes an output element:
//   v = (sum + bias[r]) * multiplier[r]
//       [+ (residual element - residual_zero) * residual_multiplier],
//   [v = act(v * y_scale) / y_scale: a fused HardSwish or SiLU, on the real
//   value],
//   clamped to [lo, hi], out = round_half_even(v) + zero, saturated to the
//   output type.
// lo and hi are in output quanta relative to zero (so a plain u8 output with
// zero z has lo = -z, hi = 255 - z; a fused Relu or Clip narrows them), and
// both within the output type's range: the store keeps the low byte.
struct QRequantize {
  const int32_t* bias = nullptr;      // one per row, or null
  const float* multiplier = nullptr;  // one per row
  float lo = 0.0f, hi = 0.0f;
  int32_t zero = 0;
  // I8 or U8; or I32 (MatMulInteger's and ConvInteger's output): the
  // sums plus the bias, stored unscaled (multiplier, lo, hi, zero and
  // residual unused).
  DType dtype = DType::U8;
  // A fused residual Add (QLinearConv's inputs 9-11): i8 or u8 elements laid
  // out as the output (the element of y[i] at residual[i], same ldy), or null.
  const void* residual = nullptr;
  DType residual_dtype = DType::U8;
  int32_t residual_zero = 0;
  float residual_multiplier = 0.0f;  // r_scale / y_scale
  // A fused activation no clamp expresses (HardSwish, SiLU: MobileNetV3's
  // and EfficientNet's layers), applied in the store to the real value, so
  // the int8 layer needs no table pass after it; y_scale is the output's.
  TileActivation activation = TileActivation::kNone;
  float y_scale = 1.0f;
};

// The store's activation on one value in output quanta (the scalar form of
// simd_tile_activation-inl.h's, for the scalar stores).
inline float store_activation(const QRequantize& rq, float v) {
  if (rq.activation == TileActivation::kNone) return v;
  const float x = v * rq.y_scale;
  const float y = rq.activation == TileActivation::kHardSwish ? x * std::min(std::max(x / 6.0f + 0.5f, 0.0f), 1.0f)
                  : x < -100.0f                               ? 0.0f
                                                              : x / (1.0f + std::exp(-x));
  return y / rq.y_scale;
}

// The residual term of element i of `rq.residual` (0 without one).
inline float residual_term(const QRequantize& rq, int64_t i) {
  if (!rq.residual) return 0.0f;
  const int32_t r = rq.residual_dtype == DType::I8 ? int32_t{static_cast<const int8_t*>(rq.residual)[i]}
                                                   : int32_t{static_cast<const uint8_t*>(rq.residual)[i]};
  return static_cast<float>(r - rq.residual_zero) * rq.residual_multiplier;
}

// rq with its residual pointer moved `offset` elements (bytes) on, for a
// part of the output that starts `offset` elements in.
inline QRequantize residual_at(QRequantize rq, int64_t offset) {
  if (rq.residual) rq.residual = static_cast<const uint8_t*>(rq.residual) + offset;
  return rq;
}

// The same requantisation for n sums of one row held exactly in floats
// (the depthwise kernel's; each an integer below 2^24), with the row's bias
// and multiplier: y[i] for i < n, rq.residual (if any) at y's offsets.
void qgemm_requantize_row(const float* sums, int64_t n, int32_t bias, float multiplier, const QRequantize& rq,
                          void* y);

// y[r * ldy + n] for r < rows, n < cols (y of rq.dtype: i8, u8 or i32). `f` must
// be qgemm_format() of A's range (the format A and B were packed in).
void qgemm(QgemmFormat f, const int32_t* packed_a, int64_t rows, int64_t groups, const int32_t* b, int64_t cols,
           const QRequantize& rq, void* y, int64_t ldy);

}  // namespace mote::cpu
