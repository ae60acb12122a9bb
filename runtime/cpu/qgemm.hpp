// The int8 GEMM behind the quantised kernels: Y = requantise(A B + bias),
// with A the zero-point-shifted weights and B the zero-point-shifted
// activations, both held as int16 pairs along the depth so that one
// multiply-add instruction (pmaddwd on x86, smlal on arm64; Highway's
// ReorderWidenMulAccumulate) does two products per int32 lane, twice the
// products per instruction of the f32 GEMM. Sums are exact int32.
//
// Layouts (a pair is one int32: the lower int16 is depth 2k, the upper 2k+1;
// an odd depth ends with a zero):
//   packed A: panels of kQgemmPanelRows rows, panel p at
//             p * depth_pairs * kQgemmPanelRows, [depth_pairs][rows of panel]
//             (missing rows of the last panel are zero);
//   B:        [depth_pairs][ldb] pairs, column n of pair k at k * ldb + n.
#pragma once

#include <cstdint>
#include <vector>

#include "mote/tensor.hpp"

namespace mote::cpu {

inline constexpr int64_t kQgemmPanelRows = 4;

inline int64_t qgemm_pairs(int64_t depth) { return (depth + 1) / 2; }

// Packs A [rows][depth] (int16 values, row-major).
std::vector<int32_t> qgemm_pack_a(int64_t rows, int64_t depth, const int16_t* a);

// Columns per step of the kernel: B's ldb and the columns computed are
// rounded up to a multiple of this (the extra columns are computed, never
// stored).
int64_t qgemm_column_step();

// How each int32 sum of row r becomes an output element:
//   v = (sum + bias[r]) * multiplier[r], clamped to [lo, hi],
//   out = round_half_even(v) + zero, saturated to the output type.
// lo and hi are in output quanta relative to zero (so a plain u8 output with
// zero z has lo = -z, hi = 255 - z; a fused Relu or Clip narrows them).
struct QRequantize {
  const int32_t* bias = nullptr;  // one per row, or null
  const float* multiplier = nullptr;  // one per row
  float lo = 0.0f, hi = 0.0f;
  int32_t zero = 0;
  DType dtype = DType::U8;  // I8 or U8
};

// y[r * ldy + n] for r < rows, n < cols (y of `dtype`, i8 or u8).
void qgemm(const int32_t* packed_a, int64_t rows, int64_t depth_pairs, const int32_t* b, int64_t ldb, int64_t cols,
           const QRequantize& rq, void* y, int64_t ldy);

}  // namespace mote::cpu
