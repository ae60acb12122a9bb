// The body of matmul.comp and matmul_shared.comp (see matmul.comp), after
// common.glsl, activation.glsl and one of the GEMM cores.

layout(constant_id = 7) const int ACT = 0;
layout(constant_id = 8) const bool HAS_BIAS = false;
// Split-K: workgroup z sums k_chunk values of k (there is no batch) and
// writes its raw sums to partial[z][row][col]; gemm_split_reduce.comp adds
// the parts and applies the epilogue.
layout(constant_id = 9) const bool SPLIT = false;
// With COLUMN_QUADS and a row-major Y (y_sc 1, y_sr = cols): four outputs
// per vec4 store.
layout(constant_id = 10) const bool QUAD_STORES = false;

TENSOR_RO(0, r)
TENSOR_RO(1, c)
TENSOR4_RO(1, c)  // with COLUMN_QUADS
TENSOR_RO(2, bias)  // Gemm's C; bound to R when absent
TENSOR_WO(3, y)
TENSOR4_WO(3, y)
// f32 whatever the storage precision (an I32 scratch on the host); bound to
// Y when unused.
layout(std430, binding = 4) writeonly buffer partial_block { float partial[]; };
layout(push_constant) uniform Push {
  uint rows, cols, depth;
  uint r_sr, r_sk, c_sk, c_sc, y_sr, y_sc, bias_sr, bias_sc;
  float alpha, beta, act_a, act_b;
  uint batch_dims[3];     // innermost last; 1 when unused
  uint r_batch_stride[3];
  uint c_batch_stride[3];
  uint k_chunk;  // SPLIT: the k values of one workgroup z
} p;

uint r_base = 0u, c_base = 0u;

float load_r(uint row, uint k) { return LOAD(r, r_base + row * p.r_sr + k * p.r_sk); }

void begin_k(uint k) {}

float load_c(uint k, uint j) {
  uint col = c_slot_column(gl_WorkGroupID.x * TILE_COLS, j);
  if (col >= p.cols) return 0.0;
  return LOAD(c, c_base + k * p.c_sk + col * p.c_sc);
}

// COLUMN_QUADS only where C's columns are contiguous (c_sc 1), and c_sk,
// every batch stride of C and the column count are multiples of 4 (the
// host's choice), so a quad is 16-byte aligned and never partly past the
// end.
vec4 load_c4(uint k, uint q) {
  uint col = c_slot_column(gl_WorkGroupID.x * TILE_COLS, 4u * q);
  if (col >= p.cols) return vec4(0.0);
  return LOAD4(c, (c_base + k * p.c_sk + col) / 4u);
}

void main() {
  uint z = gl_WorkGroupID.z;
  uint k_begin = 0u, k_end = p.depth;
  if (SPLIT) {
    k_begin = z * p.k_chunk;
    k_end = min(p.depth, k_begin + p.k_chunk);
  } else {
    uint rest = z;
    for (int d = 2; d >= 0; --d) {
      uint coord = rest % p.batch_dims[d];
      rest /= p.batch_dims[d];
      r_base += coord * p.r_batch_stride[d];
      c_base += coord * p.c_batch_stride[d];
    }
  }
  uint first_row = gl_WorkGroupID.y * TILE_ROWS, first_col = gl_WorkGroupID.x * TILE_COLS;
  gemm_accumulate(first_row, p.rows, k_begin, k_end);

  // Unrolled and guarded with if rather than break, so that acc[] is only
  // ever indexed by constants.
  uint y_base = gl_WorkGroupID.z * p.rows * p.cols;
  if (QUAD_STORES && !HAS_BIAS && !SPLIT) {
    [[unroll]] for (uint q = 0u; q < OUT_TN / 4u; ++q) {
      uint col = out_col(first_col, 4u * q);
      [[unroll]] for (uint i = 0u; i < OUT_TM; ++i) {
        uint row = out_row(first_row, i);
        if (col < p.cols && row < p.rows) {
          vec4 v = p.alpha * vec4(acc[i * OUT_TN + 4u * q], acc[i * OUT_TN + 4u * q + 1u],
                                  acc[i * OUT_TN + 4u * q + 2u], acc[i * OUT_TN + 4u * q + 3u]);
          [[unroll]] for (uint e = 0u; e < 4u; ++e) v[e] = activation(ACT, v[e], p.act_a, p.act_b, 0.0);
          STORE4(y, (y_base + row * p.cols + col) / 4u, v);
        }
      }
    }
    return;
  }
  [[unroll]] for (uint j = 0u; j < OUT_TN; ++j) {
    uint col = out_col(first_col, j);
    [[unroll]] for (uint i = 0u; i < OUT_TM; ++i) {
      uint row = out_row(first_row, i);
      if (SPLIT) {
        if (col < p.cols && row < p.rows) partial[(z * p.rows + row) * p.cols + col] = acc[i * OUT_TN + j];
      } else if (col < p.cols && row < p.rows) {
        float v = p.alpha * acc[i * OUT_TN + j];
        if (HAS_BIAS) v += p.beta * LOAD(bias, row * p.bias_sr + col * p.bias_sc);
        STORE(y, y_base + row * p.y_sr + col * p.y_sc, activation(ACT, v, p.act_a, p.act_b, 0.0));
      }
    }
  }
}
