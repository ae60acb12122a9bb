// @mote bindings=7 push=84 arithmetic=f16
// 2-D convolution as an implicit GEMM (no im2col buffer) on the register-
// tiled core of gemm_tile.glsl (conv_gemm_shared.comp: the same on
// gemm_shared.glsl, for GPUs), per group z:
//   rows    = output channels of the group (R = the weights, already
//             [rows, depth] row-major),
//   columns = output pixels of every image (batch * out_h * out_w),
//   depth   = input channels of the group * kh * kw,
// with C(k, col) gathered from X on the fly. Each k's offset into X
// (channel offset, dy, dx with the dilation applied) is the same for every
// column: this core walks it k by k, the shared core reads it from a host
// table (ktab, one uvec4 load), either sparing divisions per k; each
// invocation decodes its TN pixels once. POINTWISE (1x1, stride 1, no
// padding) reads X directly at the pixel. Epilogue: bias, residual (a
// tensor of Y's shape), fused activation.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "activation.glsl"
#include "gemm_tile.glsl"
#include "conv_gemm_main.glsl"
