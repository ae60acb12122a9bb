// @mote bindings=4 push=76
// 2-D transposed convolution, gathered: one invocation per output element
// sums the input elements that the reference scatters onto it. Output row oy
// receives input row iy through kernel row ky when
// iy * stride - pad + ky * dilation == oy, i.e. (oy + pad - ky * dilation) is
// a non-negative multiple of the stride. Valid taps are found once per
// (ky, kx) and then reduced over the group's input channels.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "activation.glsl"

layout(constant_id = 3) const int ACT = 0;
layout(constant_id = 4) const bool HAS_BIAS = false;

TENSOR_RO(0, x)
TENSOR_RO(1, w)     // [C, M / group, KH, KW]
TENSOR_RO(2, bias)  // bound to W when absent
TENSOR_WO(3, y)
layout(push_constant) uniform Push {
  uint n;                  // output elements
  uint out_pixels, out_w;
  uint out_channels;
  uint out_per_group;      // M / group
  uint in_per_group;       // C / group
  uint in_channels;
  uint in_h, in_w;
  uint kernel_h, kernel_w;
  int stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  float act_a, act_b;
} p;

void main() {
  uint i = linear_id();
  if (i >= p.n) return;
  uint pixel = i % p.out_pixels;
  uint plane = i / p.out_pixels;
  uint channel = plane % p.out_channels, image = plane / p.out_channels;
  uint group = channel / p.out_per_group, mm = channel % p.out_per_group;
  uint first_in = group * p.in_per_group;
  uint in_plane = p.in_h * p.in_w;
  uint kernel_plane = p.kernel_h * p.kernel_w;
  uint x_base = (image * p.in_channels + first_in) * in_plane;
  // Weight of input channel first_in + c at tap t: w_base + c * w_step + t.
  uint w_base = (first_in * p.out_per_group + mm) * kernel_plane;
  uint w_step = p.out_per_group * kernel_plane;
  int oy = int(pixel / p.out_w) + p.pad_h, ox = int(pixel % p.out_w) + p.pad_w;

  float sum = HAS_BIAS ? LOAD(bias, channel) : 0.0;
  for (uint ky = 0u; ky < p.kernel_h; ++ky) {
    int ty = oy - int(ky) * p.dilation_h;
    if (ty < 0 || ty % p.stride_h != 0) continue;
    uint iy = uint(ty / p.stride_h);
    if (iy >= p.in_h) continue;
    for (uint kx = 0u; kx < p.kernel_w; ++kx) {
      int tx = ox - int(kx) * p.dilation_w;
      if (tx < 0 || tx % p.stride_w != 0) continue;
      uint ix = uint(tx / p.stride_w);
      if (ix >= p.in_w) continue;
      uint xi = x_base + iy * p.in_w + ix;
      uint wi = w_base + ky * p.kernel_w + kx;
      for (uint c = 0u; c < p.in_per_group; ++c) {
        sum = fma(LOAD(x, xi), LOAD(w, wi), sum);
        xi += in_plane;
        wi += w_step;
      }
    }
  }
  STORE(y, i, activation(ACT, sum, p.act_a, p.act_b, 0.0));
}
