// @mote bindings=6 push=64
// 2-D convolution as an implicit GEMM (no im2col buffer) on the register-
// tiled core of gemm_tile.glsl, per group z:
//   rows    = output channels of the group (R = the weights, already
//             [rows, depth] row-major),
//   columns = output pixels of every image (batch * out_h * out_w),
//   depth   = input channels of the group * kh * kw,
// with C(k, col) gathered from X on the fly. Each k's offset into X comes
// from a host table (ktab: channel offset, dy, dx with the dilation applied,
// one uvec4 load) and is the same for every column, which spares divisions;
// each invocation decodes its TN pixels once. POINTWISE (1x1, stride 1, no
// padding) reads X directly at the pixel. Epilogue: bias, residual (a
// tensor of Y's shape), fused activation.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "activation.glsl"
#include "gemm_tile.glsl"

layout(constant_id = 6) const int ACT = 0;
layout(constant_id = 7) const bool HAS_BIAS = false;
layout(constant_id = 8) const bool POINTWISE = false;
layout(constant_id = 9) const bool HAS_RESIDUAL = false;

TENSOR_RO(0, x)
TENSOR_RO(1, w)
TENSOR_RO(2, bias)  // bound to W when absent
// Per k: channel offset, dy, dx, unused.
layout(std430, binding = 3) readonly buffer ktab_block { uvec4 ktab[]; };
TENSOR_WO(4, y)
TENSOR_RO(5, residual)  // Y's shape; bound to W when absent
layout(push_constant) uniform Push {
  uint rows;           // output channels per group
  uint cols;           // batch * out_pixels
  uint depth;          // input channels per group * kh * kw
  uint out_pixels, out_w;
  uint in_h, in_w;
  uint in_image;       // C * in_h * in_w: one image of X
  uint in_group;       // input channels per group * in_h * in_w
  uint out_channels;   // over all groups
  int stride_h, stride_w, pad_h, pad_w;
  float act_a, act_b;
} p;

uint w_base;
// Per column of this invocation: start of its image and group in X, the
// top-left corner of its window, and whether the column exists.
uint x_base[TN];
int iy0[TN], ix0[TN];
bool col_ok[TN];

float load_r(uint row, uint k) { return LOAD(w, w_base + row * p.depth + k); }

uvec4 tap;  // ktab[k] of the current k

void begin_k(uint k) {
  if (!POINTWISE) tap = ktab[k];
}

float load_c(uint k, uint j) {
  if (!col_ok[j]) return 0.0;
  if (POINTWISE) return LOAD(x, x_base[j] + k * p.in_h * p.in_w);
  int iy = iy0[j] + int(tap.y);
  int ix = ix0[j] + int(tap.z);
  if (uint(iy) >= p.in_h || uint(ix) >= p.in_w) return 0.0;
  return LOAD(x, x_base[j] + tap.x + uint(iy) * p.in_w + uint(ix));
}

void main() {
  uint group = gl_WorkGroupID.z;
  uint first_row = gl_WorkGroupID.y * TM, first_col = gl_WorkGroupID.x * LX * TN;
  w_base = group * p.rows * p.depth;
  [[unroll]] for (uint j = 0u; j < TN; ++j) {
    uint col = gemm_column(first_col, j);
    col_ok[j] = col < p.cols;
    uint image = col / p.out_pixels, pixel = col % p.out_pixels;
    x_base[j] = image * p.in_image + group * p.in_group + (POINTWISE ? pixel : 0u);
    iy0[j] = int(pixel / p.out_w) * p.stride_h - p.pad_h;
    ix0[j] = int(pixel % p.out_w) * p.stride_w - p.pad_w;
  }

  gemm_accumulate(first_row, p.rows, p.depth);

  // Unrolled and guarded with if rather than break, so that acc[] is only
  // ever indexed by constants.
  [[unroll]] for (uint j = 0u; j < TN; ++j) {
    uint col = gemm_column(first_col, j);
    uint y_base = (col / p.out_pixels) * p.out_channels * p.out_pixels + col % p.out_pixels;
    [[unroll]] for (uint i = 0u; i < TM; ++i) {
      uint row = first_row + i;
      if (col_ok[j] && row < p.rows) {
        uint channel = group * p.rows + row;
        float v = acc[i * TN + j];
        if (HAS_BIAS) v += LOAD(bias, channel);
        if (HAS_RESIDUAL) v += LOAD(residual, y_base + channel * p.out_pixels);
        STORE(y, y_base + channel * p.out_pixels, activation(ACT, v, p.act_a, p.act_b, 0.0));
      }
    }
  }
}
