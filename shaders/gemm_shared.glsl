// The shared-memory GEMM core for GPUs, with the interface of gemm_tile.glsl
// (the register core, whose header describes it): out(row, col) =
// sum_k R(row, k) * C(k, col).
//
// A workgroup of TX x TY invocations computes a block of TILE_ROWS = TY * TM
// rows by TILE_COLS = TX * TN columns. Both operands go through shared memory,
// BK values of k at a time: every invocation loads a share of the R block
// (k fastest, so consecutive invocations read consecutive weights) and of the
// C block (one column per invocation, so consecutive invocations read
// consecutive pixels or columns, and an im2col column is decoded once), then
// each accumulates TM x TN outputs, rows ty * TM + i and columns tx * TN + j,
// reading both operands back as vec4s. The register core reads C straight
// from memory into each invocation's registers: on a GPU that leaves every k
// step waiting on a memory load; here the loads of a block overlap each other
// and the block is reused TILE_ROWS times from shared memory.
//
// The host keeps TM and TN multiples of 4 and TX * TY a multiple of
// TILE_COLS (gemm_tile.hpp).
//
// f16 arithmetic (MOTE_FP16_MATH) as in gemm_tile.glsl (whose header says
// what can overflow): both blocks staged as f16, products summed in f16 over
// runs of F16_RUN values of k within a BK block, each run's sums added to
// the f32 accumulators.

#extension GL_EXT_control_flow_attributes : require

layout(constant_id = 3) const uint TM = 8;
layout(constant_id = 4) const uint TN = 8;
layout(constant_id = 5) const uint BK = 8;
layout(constant_id = 6) const uint TX = 16;  // invocations along the columns
const bool COLUMN_QUADS = false;  // the register core's option (gemm_tile.glsl)
const bool K_IN_ORDER = false;    // begin_k's k are spread over the invocations

const uint THREADS = gl_WorkGroupSize.x;
const uint TY = THREADS / TX;
const uint TILE_ROWS = TY * TM;
const uint TILE_COLS = TX * TN;
const uint C_SLOTS = 1u;  // the one column of C this invocation loads
const uint OUT_TM = TM;
const uint OUT_TN = TN;

// [k][row / 4] and [k][column / 4]. The R rows of one k are padded by a vec4
// so that the stores of consecutive k (consecutive invocations) spread over
// the banks (2-way conflicts left, 16-way without the padding).
const uint R4 = TILE_ROWS / 4u + 1u;
const uint C4 = TILE_COLS / 4u;
shared MATH_VEC4 tile_r[BK * R4];
shared MATH_VEC4 tile_c[BK * C4];

float acc[TM * TN];
#if MOTE_FP16_MATH
const uint F16_RUN = 8u;
MATH_T run_sum[TM * TN];
#define SUMS run_sum
#else
const uint F16_RUN = BK;
#define SUMS acc
#endif

float load_r(uint row, uint k);
void begin_k(uint k);
float load_c(uint k, uint j);

uint c_slot_column(uint first_col, uint j) { return first_col + gl_LocalInvocationID.x % TILE_COLS; }
uint out_row(uint first_row, uint i) { return first_row + (gl_LocalInvocationID.x / TX) * TM + i; }
uint out_col(uint first_col, uint j) { return first_col + (gl_LocalInvocationID.x % TX) * TN + j; }

void gemm_accumulate(uint first_row, uint rows, uint k_begin, uint k_end) {
  uint tid = gl_LocalInvocationID.x;
  uint tx = tid % TX, ty = tid / TX;
  uint c_col = tid % TILE_COLS;
  [[unroll]] for (uint i = 0u; i < TM * TN; ++i) acc[i] = 0.0;
  for (uint k0 = k_begin; k0 < k_end; k0 += BK) {
    for (uint e = tid; e < BK * TILE_ROWS; e += THREADS) {
      uint kk = e % BK, m = e / BK;
      uint row = first_row + m, k = k0 + kk;
      tile_r[kk * R4 + m / 4u][m % 4u] = MATH_T(row < rows && k < k_end ? load_r(row, k) : 0.0);
    }
    for (uint kk = tid / TILE_COLS; kk < BK; kk += THREADS / TILE_COLS) {
      uint k = k0 + kk;
      float v = 0.0;
      if (k < k_end) {
        begin_k(k);
        v = load_c(k, 0u);
      }
      tile_c[kk * C4 + c_col / 4u][c_col % 4u] = MATH_T(v);
    }
    barrier();
    [[unroll]] for (uint kk = 0u; kk < BK; ++kk) {
#if MOTE_FP16_MATH
      if (kk % F16_RUN == 0u) {
        [[unroll]] for (uint i = 0u; i < TM * TN; ++i) run_sum[i] = MATH_T(0.0);
      }
#endif
      MATH_VEC4 a[TM / 4u], b[TN / 4u];
      [[unroll]] for (uint q = 0u; q < TM / 4u; ++q) a[q] = tile_r[kk * R4 + ty * (TM / 4u) + q];
      [[unroll]] for (uint q = 0u; q < TN / 4u; ++q) b[q] = tile_c[kk * C4 + tx * (TN / 4u) + q];
      [[unroll]] for (uint i = 0u; i < TM; ++i) {
        [[unroll]] for (uint j = 0u; j < TN; ++j) {
          SUMS[i * TN + j] = fma(a[i / 4u][i % 4u], b[j / 4u][j % 4u], SUMS[i * TN + j]);
        }
      }
#if MOTE_FP16_MATH
      if (kk % F16_RUN == F16_RUN - 1u || kk + 1u == BK) {
        [[unroll]] for (uint i = 0u; i < TM * TN; ++i) acc[i] += float(run_sum[i]);
      }
#endif
    }
    barrier();
  }
}
