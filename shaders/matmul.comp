// @mote bindings=4 push=96
// out = act(alpha * R x C + beta * bias) for Gemm and (batched) MatMul on the
// register-tiled core of gemm_tile.glsl. R and C are A and B, or B^T and A^T
// when the host swaps them so that the long side of the output runs along
// the invocations; everything is addressed through element strides, so
// transposes need no copy:
//   R(row, k) = r[r_base + row * r_sr + k * r_sk]
//   C(k, col) = c[c_base + k * c_sk + col * c_sc]
//   out(row, col) -> y[z * rows * cols + row * y_sr + col * y_sc]
// Workgroup z is the batch index, decomposed over up to three broadcast batch
// dims whose strides (0 where an operand is broadcast) give r_base and c_base.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "activation.glsl"
#include "gemm_tile.glsl"

layout(constant_id = 6) const int ACT = 0;
layout(constant_id = 7) const bool HAS_BIAS = false;

TENSOR_RO(0, r)
TENSOR_RO(1, c)
TENSOR_RO(2, bias)  // Gemm's C; bound to R when absent
TENSOR_WO(3, y)
layout(push_constant) uniform Push {
  uint rows, cols, depth;
  uint r_sr, r_sk, c_sk, c_sc, y_sr, y_sc, bias_sr, bias_sc;
  float alpha, beta, act_a, act_b;
  uint batch_dims[3];     // innermost last; 1 when unused
  uint r_batch_stride[3];
  uint c_batch_stride[3];
} p;

uint r_base = 0u, c_base = 0u;

float load_r(uint row, uint k) { return LOAD(r, r_base + row * p.r_sr + k * p.r_sk); }

void begin_k(uint k) {}

float load_c(uint k, uint j) {
  uint col = gemm_column(gl_WorkGroupID.x * LX * TN, j);
  if (col >= p.cols) return 0.0;
  return LOAD(c, c_base + k * p.c_sk + col * p.c_sc);
}

void main() {
  uint rest = gl_WorkGroupID.z;
  for (int d = 2; d >= 0; --d) {
    uint coord = rest % p.batch_dims[d];
    rest /= p.batch_dims[d];
    r_base += coord * p.r_batch_stride[d];
    c_base += coord * p.c_batch_stride[d];
  }
  uint first_row = gl_WorkGroupID.y * TM, first_col = gl_WorkGroupID.x * LX * TN;
  gemm_accumulate(first_row, p.rows, p.depth);

  // Unrolled and guarded with if rather than break, so that acc[] is only
  // ever indexed by constants.
  uint y_base = gl_WorkGroupID.z * p.rows * p.cols;
  [[unroll]] for (uint j = 0u; j < TN; ++j) {
    uint col = gemm_column(first_col, j);
    [[unroll]] for (uint i = 0u; i < TM; ++i) {
      uint row = first_row + i;
      if (col < p.cols && row < p.rows) {
        float v = p.alpha * acc[i * TN + j];
        if (HAS_BIAS) v += p.beta * LOAD(bias, row * p.bias_sr + col * p.bias_sc);
        STORE(y, y_base + row * p.y_sr + col * p.y_sc, activation(ACT, v, p.act_a, p.act_b, 0.0));
      }
    }
  }
}
