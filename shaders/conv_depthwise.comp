// @mote bindings=5 push=60
// Depthwise 2-D convolution (one input channel per group, any channel
// multiplier) as a direct stencil: a GEMM would have depth kh * kw, far too
// shallow to fill its tiles. Workgroup y is the output channel and z the
// image, so the weights and bias are the same for the whole workgroup (a
// broadcast on GPUs); each invocation computes one output pixel, the window
// loops bounded by the KH and KW specialisation constants so they unroll.
// Epilogue: bias, residual (a tensor of Y's shape), fused activation.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "activation.glsl"

layout(constant_id = 3) const int ACT = 0;
layout(constant_id = 4) const bool HAS_BIAS = false;
layout(constant_id = 5) const int KH = 3;
layout(constant_id = 6) const int KW = 3;
layout(constant_id = 7) const bool HAS_RESIDUAL = false;

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
} p;

void main() {
  uint pixel = gl_GlobalInvocationID.x;
  if (pixel >= p.out_pixels) return;
  uint channel = gl_WorkGroupID.y, image = gl_WorkGroupID.z;
  uint in_plane = (image * p.in_channels + channel / p.multiplier) * p.in_h * p.in_w;
  int iy0 = int(pixel / p.out_w) * p.stride_h - p.pad_h;
  int ix0 = int(pixel % p.out_w) * p.stride_w - p.pad_w;
  uint w_base = channel * uint(KH * KW);

  float sum = HAS_BIAS ? LOAD(bias, channel) : 0.0;
  for (int ky = 0; ky < KH; ++ky) {
    int iy = iy0 + ky * p.dilation_h;
    if (uint(iy) >= p.in_h) continue;
    for (int kx = 0; kx < KW; ++kx) {
      int ix = ix0 + kx * p.dilation_w;
      if (uint(ix) >= p.in_w) continue;
      sum = fma(LOAD(x, in_plane + uint(iy) * p.in_w + uint(ix)), LOAD(w, w_base + uint(ky * KW + kx)), sum);
    }
  }
  uint out_index = (image * p.out_channels + channel) * p.out_pixels + pixel;
  if (HAS_RESIDUAL) sum += LOAD(residual, out_index);
  STORE(y, out_index, activation(ACT, sum, p.act_a, p.act_b, 0.0));
}
