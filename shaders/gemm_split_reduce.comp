// @mote bindings=4 push=52
// The second pass of a split-K GEMM (matmul_main.glsl, conv_gemm_main.glsl
// with SPLIT): out(row, col) = act(alpha * sum_s partial[s][row][col]
// + beta * bias + residual), one invocation per output. Columns run over
// images of cols_per_image each (a convolution's pixels; a MatMul has one
// image): out(row, col) goes to
//   y[(col / cols_per_image) * image_stride + row * y_sr + (col % cols_per_image) * y_sc]
// and the residual (a tensor of Y's shape) is read at the same index.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "activation.glsl"

layout(constant_id = 3) const int ACT = 0;
layout(constant_id = 4) const bool HAS_BIAS = false;
layout(constant_id = 5) const bool HAS_RESIDUAL = false;

layout(std430, binding = 0) readonly buffer partial_block { float partial[]; };
TENSOR_RO(1, bias)      // bound to Y when absent
TENSOR_RO(2, residual)  // bound to Y when absent
TENSOR_WO(3, y)
layout(push_constant) uniform Push {
  uint rows, cols, splits;
  uint cols_per_image, image_stride, y_sr, y_sc, bias_sr, bias_sc;
  float alpha, beta, act_a, act_b;
} p;

void main() {
  uint id = linear_id();
  if (id >= p.rows * p.cols) return;
  uint row = id / p.cols, col = id % p.cols;
  float sum = 0.0;
  for (uint s = 0u; s < p.splits; ++s) sum += partial[s * p.rows * p.cols + id];
  float v = p.alpha * sum;
  if (HAS_BIAS) v += p.beta * LOAD(bias, row * p.bias_sr + col * p.bias_sc);
  uint at = (col / p.cols_per_image) * p.image_stride + row * p.y_sr + (col % p.cols_per_image) * p.y_sc;
  if (HAS_RESIDUAL) v += LOAD(residual, at);
  STORE(y, at, activation(ACT, v, p.act_a, p.act_b, 0.0));
}
