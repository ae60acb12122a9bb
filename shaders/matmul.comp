// @mote bindings=5 push=100 arithmetic=f16
// out = act(alpha * R x C + beta * bias) for Gemm and (batched) MatMul on the
// register-tiled core of gemm_tile.glsl (matmul_shared.comp: the same on
// gemm_shared.glsl, for GPUs). R and C are A and B, or B^T and A^T
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
#include "matmul_main.glsl"
