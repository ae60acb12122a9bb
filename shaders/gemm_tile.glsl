// The register-tiled GEMM core shared by matmul.comp and conv_gemm.comp:
// out(row, col) = sum_k R(row, k) * C(k, col).
//
// A workgroup of LX invocations (a 1-D local size) computes TM rows by
// LX * TN columns. Every invocation holds all TM rows of TN columns
// (tx + j * LX) in registers. The R block is staged through shared memory,
// BK values of k at a time, and read back at addresses that are the same for
// the whole workgroup (a broadcast on GPUs). Each C value is used by exactly
// one invocation, so it is read straight from the tensor; the including
// shader knows how (im2col addressing, strides). On lavapipe every load in
// the loop costs a loop over the SIMD lanes, uniform address or not, so the
// shapes favour few load instructions per FMA: R rows come as vec4s and an
// invocation keeps up to 32 x 4 accumulators (see gemm_tile.hpp).
// gemm_shared.glsl is the other core, for GPUs; both offer the interface
// below, so matmul_main.glsl and conv_gemm_main.glsl serve either.
//
// Column quads (COLUMN_QUADS, constant 6; TN a multiple of 4): invocation
// tx owns columns in runs of four, 4 * (tx + q * LX) + e for quad q, so each
// k brings its C values in TN / 4 vec4 loads instead of TN scalar ones, and
// the including shader can store four outputs at once where the output is
// contiguous along the columns too. The host asks for it only where C is
// contiguous along the columns and every quad starts at a multiple of 4
// floats (kernels/conv.cpp, gemm.cpp). On lavapipe, where each load is a
// loop over the lanes, a 144 -> 24 channel 1x1 convolution on 56x56 ran
// 1.7x faster with one C load per k in place of four (docs/vulkan.md).
//
// The including shader defines the functions declared below:
//   load_r(row, k)  R element; called only with row < rows and k < k_end
//   begin_k(k)      called before the load_c calls of each k (k < k_end);
//                   this core calls it with k_begin, k_begin + 1, ... in
//                   order (K_IN_ORDER), so the includer may walk its state
//   load_c(k, j)    C element at this invocation's j-th load column
//                   (c_slot_column, j < C_SLOTS), 0 for a column past the end
//   load_c4(k, q)   with COLUMN_QUADS: C at load columns 4q .. 4q + 3, zeros
//                   for a quad past the end
// and calls gemm_accumulate(first_row, rows, k_begin, k_end) (the sum over
// k_begin <= k < k_end: all of the depth, or one part of a split-K product)
// with first_row =
// workgroup y * TILE_ROWS (first_col = workgroup x * TILE_COLS), then reads
// acc[i * OUT_TN + j], the output at out_row(first_row, i),
// out_col(first_col, j). Tile sizes are specialisation constants 3..5 and
// COLUMN_QUADS 6; including shaders number theirs from 7.
//
// Rows by shuffle (MOTE_SHUFFLE_ROWS: conv_gemm_shuffle.comp,
// matmul_shuffle.comp): instead of every invocation reading the TM / 4
// vec4s of R for each k from shared memory, invocation q of each subgroup
// reads the q-th and hands it to the others with subgroupShuffle. On
// lavapipe a subgroup is one SIMD register of lanes, so that is one gathered
// load and TM / 4 lane broadcasts where it was TM / 4 loads, each a loop
// over the lanes (MobileNetV2 1.4x faster there, docs/vulkan.md). The host
// takes this variant only when every subgroup of the workgroup has at least
// TM / 4 invocations (GemmTile::rows_by_shuffle).
//
// f16 arithmetic (MOTE_FP16_MATH, the f16m variant): the R block is staged
// as f16, the operands are multiplied as f16 (MATH_T), and the products of
// up to F16_RUN consecutive k (runs restart at each BK block) are summed in
// f16 registers; each run's sum is then added to the f32 accumulators. The
// sum over the whole depth is therefore f32: a 4096-deep product of ones
// comes out 4096, where f16 sums alone would stop at 2048 (adding 1 to 2048
// rounds back to 2048 in f16). What f16 cannot hold still goes wrong: a
// product or a run's sum past 65504 is infinite even when the inputs and
// the output are in range, and products below about 6e-5 are subnormal,
// which many GPUs flush to zero. choose_gpu_precision measures this.

#extension GL_EXT_control_flow_attributes : require
#ifndef MOTE_SHUFFLE_ROWS
#define MOTE_SHUFFLE_ROWS 0
#endif
#if MOTE_SHUFFLE_ROWS
#extension GL_KHR_shader_subgroup_shuffle : require
#endif

layout(constant_id = 3) const uint TM = 32;
layout(constant_id = 4) const uint TN = 4;
layout(constant_id = 5) const uint BK = 32;
layout(constant_id = 6) const bool COLUMN_QUADS = false;

const uint LX = gl_WorkGroupSize.x;
const uint TILE_ROWS = TM;
const uint TILE_COLS = LX * TN;
const uint C_SLOTS = TN;  // every column an invocation loads is one it owns
const bool K_IN_ORDER = true;  // see begin_k
const uint OUT_TM = TM;
const uint OUT_TN = TN;

// vec4s of 4 consecutive rows, so one load instruction brings four rows;
// TM is therefore a multiple of 4.
shared MATH_VEC4 tile_r[BK * TM / 4];

float acc[TM * TN];
#if MOTE_FP16_MATH
const uint F16_RUN = 8u;
MATH_T run_sum[TM * TN];  // the current run's f16 sums
#define SUMS run_sum
#else
const uint F16_RUN = BK;  // one run per block: the sums go straight to acc
#define SUMS acc
#endif

float load_r(uint row, uint k);
void begin_k(uint k);
float load_c(uint k, uint j);
vec4 load_c4(uint k, uint q);

void gemm_accumulate(uint first_row, uint rows, uint k_begin, uint k_end) {
  uint tid = gl_LocalInvocationID.x;
  // The register loops are unrolled so that acc[] lives in registers, not in
  // indexed memory.
  [[unroll]] for (uint i = 0u; i < TM * TN; ++i) acc[i] = 0.0;
  for (uint k0 = k_begin; k0 < k_end; k0 += BK) {
    // k fastest: consecutive invocations read consecutive addresses of a
    // row-major R (weights).
    for (uint i = tid; i < BK * TM; i += LX) {
      uint kk = i % BK, mm = i / BK;
      uint row = first_row + mm, k = k0 + kk;
      tile_r[kk * (TM / 4u) + mm / 4u][mm % 4u] = MATH_T(row < rows && k < k_end ? load_r(row, k) : 0.0);
    }
    barrier();
    uint steps = min(BK, k_end - k0);
    for (uint run = 0u; run < steps; run += F16_RUN) {
#if MOTE_FP16_MATH
      [[unroll]] for (uint i = 0u; i < TM * TN; ++i) run_sum[i] = MATH_T(0.0);
#endif
      for (uint kk = run; kk < min(steps, run + F16_RUN); ++kk) {
        MATH_T c[TN];
        begin_k(k0 + kk);
        if (COLUMN_QUADS) {
          [[unroll]] for (uint q = 0u; q < TN / 4u; ++q) {
            vec4 quad = load_c4(k0 + kk, q);
            [[unroll]] for (uint e = 0u; e < 4u; ++e) c[4u * q + e] = MATH_T(quad[e]);
          }
        } else {
          [[unroll]] for (uint j = 0u; j < TN; ++j) c[j] = MATH_T(load_c(k0 + kk, j));
        }
#if MOTE_SHUFFLE_ROWS
        // Shuffled as f32: f16 shuffles would need the subgroup extended types.
        vec4 mine = vec4(tile_r[kk * (TM / 4u) + gl_SubgroupInvocationID % (TM / 4u)]);
#endif
        [[unroll]] for (uint q = 0u; q < TM / 4u; ++q) {
#if MOTE_SHUFFLE_ROWS
          MATH_VEC4 r = MATH_VEC4(subgroupShuffle(mine, q));
#else
          MATH_VEC4 r = tile_r[kk * (TM / 4u) + q];
#endif
          [[unroll]] for (uint e = 0u; e < 4u; ++e) {
            [[unroll]] for (uint j = 0u; j < TN; ++j) SUMS[(4u * q + e) * TN + j] = fma(r[e], c[j], SUMS[(4u * q + e) * TN + j]);
          }
        }
      }
#if MOTE_FP16_MATH
      [[unroll]] for (uint i = 0u; i < TM * TN; ++i) acc[i] += float(run_sum[i]);
#endif
    }
    barrier();
  }
}

uint c_slot_column(uint first_col, uint j) {
  if (COLUMN_QUADS) return first_col + 4u * (gl_LocalInvocationID.x + (j / 4u) * LX) + j % 4u;
  return first_col + gl_LocalInvocationID.x + j * LX;
}
uint out_row(uint first_row, uint i) { return first_row + i; }
uint out_col(uint first_col, uint j) { return c_slot_column(first_col, j); }
