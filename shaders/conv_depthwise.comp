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
// Where rows hold a multiple of 4 floats, the row band comes in aligned
// vec4s (ROW_LEAD: where the band starts within its first vec4; a 3x3
// stride-2 band of 9 inputs is 3 loads instead of 9), and where output rows
// do too, the OUT_X outputs go out as one vec4 (OUT_QUADS, OUT_X 4).
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
layout(constant_id = 10) const int ROW_LEAD = -1;  // -1: the band element by element
layout(constant_id = 11) const bool OUT_QUADS = false;
// Inputs of one row band of the OUT_X outputs (OUT_X > 1).
const int SPAN = (OUT_X - 1) * STRIDE_X + KW;
// The aligned vec4s holding a band that starts ROW_LEAD into the first.
const int BAND_VEC4S = ROW_LEAD < 0 ? 1 : (ROW_LEAD + SPAN + 3) / 4;

TENSOR_RO(0, x)
TENSOR4_RO(0, x)
TENSOR_RO(1, w)     // [M, 1, KH, KW]
TENSOR_RO(2, bias)  // bound to W when absent
TENSOR_WO(3, y)
TENSOR4_WO(3, y)
TENSOR_RO(4, residual)  // Y's shape; bound to W when absent
TENSOR4_RO(4, residual)
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
    if (ROW_LEAD >= 0) {
      // in_w is a multiple of 4, so an aligned vec4 lies wholly inside the
      // row or wholly in its padding.
      vec4 band[BAND_VEC4S];
      [[unroll]] for (int q = 0; q < BAND_VEC4S; ++q) {
        int at = ix0 - ROW_LEAD + 4 * q;
        band[q] = uint(at) < p.in_w ? LOAD4(x, (row_base + uint(at)) / 4u) : vec4(0.0);
      }
      [[unroll]] for (int j = 0; j < SPAN; ++j) row[j] = band[(ROW_LEAD + j) / 4][(ROW_LEAD + j) % 4];
    } else {
      [[unroll]] for (int j = 0; j < SPAN; ++j) {
        int ix = ix0 + j;
        row[j] = uint(ix) < p.in_w ? LOAD(x, row_base + uint(ix)) : 0.0;
      }
    }
    [[unroll]] for (int o = 0; o < OUT_X; ++o) {
      [[unroll]] for (int kx = 0; kx < KW; ++kx) sum[o] = fma(row[o * STRIDE_X + kx], wts[ky * KW + kx], sum[o]);
    }
  }
  if (OUT_QUADS) {
    // out_w is a multiple of 4, so all four outputs exist.
    uint at = (out_plane + oy * p.out_w + ox0) / 4u;
    vec4 v;
    [[unroll]] for (int e = 0; e < 4; ++e) v[e] = sum[min(e, OUT_X - 1)];
    if (HAS_RESIDUAL) v += LOAD4(residual, at);
    [[unroll]] for (int e = 0; e < 4; ++e) v[e] = activation(ACT, v[e], p.act_a, p.act_b, 0.0);
    STORE4(y, at, v);
    return;
  }
  [[unroll]] for (int o = 0; o < OUT_X; ++o) {
    uint ox = ox0 + uint(o);
    if (ox < p.out_w) {
      uint out_index = out_plane + oy * p.out_w + ox;
      STORE(y, out_index, finish(out_index, sum[o]));
    }
  }
}
