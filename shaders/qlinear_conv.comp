// @mote bindings=5 push=96
// QLinearConv (runtime/ops/qlinear_conv.hpp) as a direct convolution in
// int32, the portable path every Vulkan 1.1 device runs: bytes are read
// from 32-bit words (no 8-bit storage needed) and each invocation writes one
// whole output word, four consecutive output elements, so no two
// invocations share a word. Per output channel, a table gives the int32
// bias, the weights' zero point and x_scale * w_scale as float bits. The sum
// is requantised in f32 as the CPU kernel does: the real value (plus the
// fused residual), the fused activation, division by y_scale, rounding half
// to even, the zero point, saturation.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "activation.glsl"
#include "quant.glsl"

layout(constant_id = 3) const int ACT = 0;
layout(constant_id = 4) const bool X_SIGNED = false;
layout(constant_id = 5) const bool W_SIGNED = true;
layout(constant_id = 6) const bool Y_SIGNED = false;
layout(constant_id = 7) const bool HAS_RESIDUAL = false;
layout(constant_id = 8) const bool R_SIGNED = false;

WORDS_RO(0, x)         // bytes, [N, C, H, W]
WORDS_RO(1, w)         // bytes, [M, C / group, KH, KW]
WORDS_RO(2, channel)   // per output channel m: bias, w zero point, float bits of x_scale * w_scale[m]
WORDS_WO(3, y)         // bytes, [N, M, OH, OW]
WORDS_RO(4, residual)  // bytes, Y's shape; bound to X when absent
layout(push_constant) uniform Push {
  uint n;  // output elements
  uint out_pixels, out_w, out_channels;
  uint in_h, in_w, in_channels;
  uint channels_per_group, out_channels_per_group, kernel_h, kernel_w;
  int stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  int x_zero, y_zero, r_zero;
  float y_scale, r_scale, act_a, act_b;
} p;

int requantized(uint e) {
  uint pixel = e % p.out_pixels;
  uint image_channel = e / p.out_pixels;
  uint m = image_channel % p.out_channels, image = image_channel / p.out_channels;
  uint first_channel = image * p.in_channels + m / p.out_channels_per_group * p.channels_per_group;
  int iy0 = int(pixel / p.out_w) * p.stride_h - p.pad_h;
  int ix0 = int(pixel % p.out_w) * p.stride_w - p.pad_w;
  int acc = int(channel[3u * m]);
  int w_zero = int(channel[3u * m + 1u]);
  uint tap = m * p.channels_per_group * p.kernel_h * p.kernel_w;
  for (uint c = 0u; c < p.channels_per_group; ++c) {
    uint plane = (first_channel + c) * p.in_h * p.in_w;
    for (uint ky = 0u; ky < p.kernel_h; ++ky) {
      int iy = iy0 + int(ky) * p.dilation_h;
      // Taps in the padding hold x's zero point: they add nothing.
      if (uint(iy) >= p.in_h) {
        tap += p.kernel_w;
        continue;
      }
      for (uint kx = 0u; kx < p.kernel_w; ++kx, ++tap) {
        int ix = ix0 + int(kx) * p.dilation_w;
        if (uint(ix) >= p.in_w) continue;
        uint xi = plane + uint(iy) * p.in_w + uint(ix);
        acc += (BYTE_AT(x, xi, X_SIGNED) - p.x_zero) * (BYTE_AT(w, tap, W_SIGNED) - w_zero);
      }
    }
  }
  float real = float(acc) * uintBitsToFloat(channel[3u * m + 2u]);
  if (HAS_RESIDUAL) real += p.r_scale * float(BYTE_AT(residual, e, R_SIGNED) - p.r_zero);
  return requantize(activation(ACT, real, p.act_a, p.act_b, 0.0), p.y_scale, p.y_zero, Y_SIGNED);
}

void main() {
  uint first = linear_id() * 4u;
  if (first >= p.n) return;
  uint word = 0u;
  for (uint k = 0u; k < 4u && first + k < p.n; ++k) word |= (uint(requantized(first + k)) & 0xffu) << (8u * k);
  y[first >> 2u] = word;
}
