// Interface between gemm.cpp (argument checks, work split, threads) and
// gemm_kernel.cpp (the SIMD code, compiled once per instruction set). Not
// part of the public API.
//
// Packed layouts. K is cut into blocks (see KBlocks); a packed operand stores
// its blocks one after the other, block b starting at k_begin(b) * rows for A
// and k_begin(b) * padded_cols for B, so any block is found without a table.
//  - A (rows x K): inside a block, panels of mr rows; the panel holding row i0
//    starts at i0 * kc and stores, for each k, its h = min(mr, rows - i0)
//    values contiguously: element (i0 + r, k) at (k - k0) * h + r.
//  - B (K x cols): cols is padded with zeros to a multiple of the vector
//    length (padded_cols). Inside a block, panels of nr columns; the panel
//    holding column j0 starts at j0 * kc and stores, for each k, its
//    w = min(nr, padded_cols - j0) values contiguously.
// The micro-kernel thus walks both panels strictly sequentially.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mote::cpu::gemm_detail {

// Blocking of the micro-kernel selected for this CPU.
struct KernelShape {
  int64_t mr;      // rows of an A panel (rows of a micro-tile)
  int64_t nr;      // columns of a B panel (columns of a micro-tile)
  int64_t lanes;   // floats per vector; B columns are padded to a multiple
  int64_t kc;      // largest K block
  int64_t nc;      // columns of B kept in L2 while a task walks its rows
  int64_t target;  // Highway target bit: identifies the packed layouts
};
KernelShape kernel_shape();

// K split into count blocks of nearly equal depth, none deeper than kc:
// equal blocks avoid a shallow last block whose C traffic is not amortized.
struct KBlocks {
  int64_t K, count;
  KBlocks(int64_t k, int64_t kc) : K(k), count(k > 0 ? (k + kc - 1) / kc : 0) {}
  int64_t begin(int64_t b) const { return b * K / count; }
};

inline int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// Packs panels [panel_begin, panel_end) of op(A), a rows x K matrix (A is
// K x rows when trans), into dst laid out as above for the whole matrix.
void pack_a(bool trans, const float* A, int64_t lda, int64_t rows, int64_t K,
            int64_t panel_begin, int64_t panel_end, float* dst);
// Same for an indexed A (IndexedMatrix's offsets); `narrow` when every
// row offset plus column offset lies in [0, 2^31), so that whole panels may
// be gathered with 32-bit indices.
void pack_a_indexed(const float* data, const int64_t* row_offsets, const int64_t* col_offsets, bool narrow,
                    int64_t rows, int64_t K, int64_t panel_begin, int64_t panel_end, float* dst);
// Same for op(B), a K x cols matrix (B is cols x K when trans); with
// row_offsets (not trans), row k of B is at B + row_offsets[k] and ldb is
// not used.
void pack_b(bool trans, const float* B, int64_t ldb, int64_t K, int64_t cols, int64_t panel_begin, int64_t panel_end,
            float* dst, const int64_t* row_offsets = nullptr);

// One rectangle of C. A is packed; B is either packed (pb) or read from b
// (op by b_trans, leading dimension ldb) and packed inside, one K block at a
// time into block_buffer(). C, row_bias, col_bias, pa and b point at row 0 of
// the packed A and column 0 of op(B).
struct TileJob {
  const float* pa;
  int64_t pa_rows;
  bool pa_prepacked;  // packed before the call (a layer's weights), so likely not in cache
  const float* pb;
  const float* b;
  int64_t ldb;
  bool b_trans;
  const int64_t* b_row_offsets;  // RowOffsetMatrix: row k of B at b + b_row_offsets[k]
  int64_t cols;  // columns of op(B)
  int64_t K;
  int64_t row_begin, row_end;  // row_begin is a multiple of mr
  int64_t col_begin, col_end;  // col_begin is a multiple of nr (of lanes if !pb)
  float* C;
  int64_t ldc;
  float alpha, beta;
  const float* row_bias;
  const float* col_bias;
  const float* residual;  // at row 0, column 0 of C, or nullptr
  int64_t ld_residual;
  float clamp_min, clamp_max;
  void (*activation)(const void*, float*, int64_t);  // GemmEpilogue::activation
  const void* activation_state;
};
void compute_tile(const TileJob& job);

// Scratch of the calling thread for a packed B block (gemm.cpp), distinct
// from the one that holds operands packed for all threads.
float* block_buffer(size_t floats);

// Unpacked matrix-vector products for M == 1 or N == 1, which are limited by
// memory bandwidth: packing would only add a copy. Both write raw sums.
// out[j] = sum_k s[k] * X[k * ldx + j] for j < n.
void gemv_rows(int64_t n, int64_t K, const float* s, const float* X, int64_t ldx, float* out);
// out[i] = sum_k X[i * ldx + k] * v[k] for i < m.
void gemv_dots(int64_t m, int64_t K, const float* X, int64_t ldx, const float* v, float* out);

// For tests: the targets compiled here that this CPU supports, and a way to
// make dispatch pick one of them (0 restores the normal choice). Not thread
// safe; packed matrices are only valid for the target they were packed for.
std::vector<int64_t> targets_for_test();
void force_target_for_test(int64_t target);

}  // namespace mote::cpu::gemm_detail
