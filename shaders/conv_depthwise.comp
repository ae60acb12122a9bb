// @mote bindings=5 push=64
// Depthwise 2-D convolution (one input channel per group, any channel
// multiplier) as a direct stencil: a GEMM would have depth kh * kw, far too
// shallow to fill its tiles. Workgroup y is the output channel and z the
// image, so the weights and bias are the same for the whole workgroup (a
// broadcast on GPUs); the window loops are bounded by the KH and KW
// specialisation constants so they unroll.
// Each invocation computes OUT_X outputs side by side in one row: the
// weights are loaded once for all of them and each input of the row band
// once, not once per output that reads it (a 3x3 stride-1 window over 4
// outputs loads 18 inputs instead of 36, and 9 weights instead of 36: on
// lavapipe every load is a loop over its lanes). OUT_X > 1 needs an
// undilated row (dilation_w 1) and takes the column stride as STRIDE_X.
// Epilogue: bias, residual (a tensor of Y's shape), fused activation.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "activation.glsl"

layout(constant_id = 3) const int ACT = 0;
layout(constant_id = 4) const bool HAS_BIAS = false;
layout(constant_id = 5) const int KH = 3;
layout(constant_id = 6) const int KW = 3;
layout(constant_id = 7) const bool HAS_RESIDUAL = false;
layout(constant_id = 8) const int OUT_X = 1;
layout(constant_id = 9) const int STRIDE_X = 1;
// Inputs of one row band of the OUT_X outputs (OUT_X > 1).
const int SPAN = (OUT_X - 1) * STRIDE_X + KW;

TENSOR_RO(0, x)
TENSOR_RO(1, w)     // [M, 1, KH, KW]
TENSOR_RO(2, bias)  // bound to W when absent
TENSOR_WO(3, y)
TENSOR_RO(4, residual)  // Y's shape; bound to W when absent
layout(push_constant) uniform Push {
  uint out_pixels, out_w;
  uint out_channels;
  uint multiplier;    // output channels per input channel
  uint in_h, in_w;
  uint in_channels;
  int stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  float act_a, act_b;
  uint groups_w;      // invocations per output row: out_w / OUT_X, rounded up
} p;

float finish(uint out_index, float sum) {
  if (HAS_RESIDUAL) sum += LOAD(residual, out_index);
  return activation(ACT, sum, p.act_a, p.act_b, 0.0);
}

void main() {
  uint channel = gl_WorkGroupID.y, image = gl_WorkGroupID.z;
  uint in_plane = (image * p.in_channels + channel / p.multiplier) * p.in_h * p.in_w;
  uint w_base = channel * uint(KH * KW);
  uint out_plane = (image * p.out_channels + channel) * p.out_pixels;
  float start = HAS_BIAS ? LOAD(bias, channel) : 0.0;

  if (OUT_X == 1) {
    uint pixel = gl_GlobalInvocationID.x;
    if (pixel >= p.out_pixels) return;
    int iy0 = int(pixel / p.out_w) * p.stride_h - p.pad_h;
    int ix0 = int(pixel % p.out_w) * p.stride_w - p.pad_w;
    float sum = start;
    for (int ky = 0; ky < KH; ++ky) {
      int iy = iy0 + ky * p.dilation_h;
      if (uint(iy) >= p.in_h) continue;
      for (int kx = 0; kx < KW; ++kx) {
        int ix = ix0 + kx * p.dilation_w;
        if (uint(ix) >= p.in_w) continue;
        sum = fma(LOAD(x, in_plane + uint(iy) * p.in_w + uint(ix)), LOAD(w, w_base + uint(ky * KW + kx)), sum);
      }
    }
    STORE(y, out_plane + pixel, finish(out_plane + pixel, sum));
    return;
  }

  uint item = gl_GlobalInvocationID.x;
  uint out_h = p.out_pixels / p.out_w;
  if (item >= out_h * p.groups_w) return;
  uint oy = item / p.groups_w, ox0 = (item % p.groups_w) * uint(OUT_X);
  int iy0 = int(oy) * p.stride_h - p.pad_h;
  int ix0 = int(ox0) * STRIDE_X - p.pad_w;
  float wts[KH * KW];
  [[unroll]] for (int t = 0; t < KH * KW; ++t) wts[t] = LOAD(w, w_base + uint(t));
  float sum[OUT_X];
  [[unroll]] for (int o = 0; o < OUT_X; ++o) sum[o] = start;
  [[unroll]] for (int ky = 0; ky < KH; ++ky) {
    int iy = iy0 + ky * p.dilation_h;
    if (uint(iy) >= p.in_h) continue;
    uint row_base = in_plane + uint(iy) * p.in_w;
    float row[SPAN];
    [[unroll]] for (int j = 0; j < SPAN; ++j) {
      int ix = ix0 + j;
      row[j] = uint(ix) < p.in_w ? LOAD(x, row_base + uint(ix)) : 0.0;
    }
    [[unroll]] for (int o = 0; o < OUT_X; ++o) {
      [[unroll]] for (int kx = 0; kx < KW; ++kx) sum[o] = fma(row[o * STRIDE_X + kx], wts[ky * KW + kx], sum[o]);
    }
  }
  [[unroll]] for (int o = 0; o < OUT_X; ++o) {
    uint ox = ox0 + uint(o);
    if (ox < p.out_w) {
      uint out_index = out_plane + oy * p.out_w + ox;
      STORE(y, out_index, finish(out_index, sum[o]));
    }
  }
}
