// QLinearConv (runtime/ops/qlinear_conv.hpp) as a direct convolution in
// int32, the body of qlinear_conv.comp (portable: every Vulkan 1.1 device)
// and qlinear_conv_dot.comp (MOTE_INT8_DOT: VK_KHR_shader_integer_dot_product,
// one group). Bytes are read from 32-bit words (no 8-bit storage needed) and
// each invocation writes one whole output word, four consecutive output
// elements, so no two invocations share a word. Per output channel m, a
// table gives the int32 bias, the weights' zero point, x_scale * w_scale[m]
// as float bits and the sum of m's weight codes (the dot path's).
//
// The dot path reads X packed by pack_channels4.comp, four channels' codes
// of a pixel in one word ([N, C4, H, W], missing channels at X's zero
// point), and W packed alike by the host ([M, C4, KH, KW], missing channels
// at W's zero point). It sums the raw products four at a time over every
// tap, padding taps as X's zero point, and removes the zero points after:
//   sum (x - zx)(w - zw) = sum xw - zx sum w - zw sum x + T zx zw,
// T the taps (C4 * 4 * KH * KW): padded taps and channels add 0 to the left
// side, so summing them keeps both sides equal (int32 wraps; the true sum
// fits). The portable path sums (x - zx)(w - zw) byte by byte over the
// taps inside X.
//
// The sum is requantised in f32 as the CPU kernel does: the real value
// (plus the fused residual), the fused activation, division by y_scale,
// rounding half to even, the zero point, saturation.
#include "common.glsl"
#include "activation.glsl"
#include "quant.glsl"
#include "dot4.glsl"

layout(constant_id = 3) const int ACT = 0;
layout(constant_id = 4) const bool X_SIGNED = false;
layout(constant_id = 5) const bool W_SIGNED = true;
layout(constant_id = 6) const bool Y_SIGNED = false;
layout(constant_id = 7) const bool HAS_RESIDUAL = false;
layout(constant_id = 8) const bool R_SIGNED = false;

WORDS_RO(0, x)         // bytes, [N, C, H, W] (dot: words, [N, C4, H, W])
WORDS_RO(1, w)         // bytes, [M, C / group, KH, KW] (dot: words, [M, C4, KH, KW])
WORDS_RO(2, channel)   // per output channel m: bias, w zero point, multiplier bits, sum of w codes
WORDS_WO(3, y)         // bytes, [N, M, OH, OW]
WORDS_RO(4, residual)  // bytes, Y's shape; bound to X when absent
layout(push_constant) uniform Push {
  uint n;  // output elements
  uint out_pixels, out_w, out_channels;
  uint in_h, in_w, in_channels;  // (dot: in_channels and channels_per_group count words, C4)
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
  int acc = int(channel[4u * m]);
  int w_zero = int(channel[4u * m + 1u]);
  uint tap = m * p.channels_per_group * p.kernel_h * p.kernel_w;
#if MOTE_INT8_DOT
  uint zero_word = uint(p.x_zero & 0xff) * 0x01010101u;
  int dot = 0, x_sum = 0;
  for (uint c = 0u; c < p.channels_per_group; ++c) {
    uint plane = (first_channel + c) * p.in_h * p.in_w;
    for (uint ky = 0u; ky < p.kernel_h; ++ky) {
      int iy = iy0 + int(ky) * p.dilation_h;
      for (uint kx = 0u; kx < p.kernel_w; ++kx, ++tap) {
        int ix = ix0 + int(kx) * p.dilation_w;
        uint word = uint(iy) < p.in_h && uint(ix) < p.in_w ? x[plane + uint(iy) * p.in_w + uint(ix)] : zero_word;
        dot += dot4(word, w[tap], X_SIGNED, W_SIGNED);
        x_sum += sum4(word, X_SIGNED);
      }
    }
  }
  int taps = int(p.channels_per_group * p.kernel_h * p.kernel_w) * 4;
  acc += dot - p.x_zero * int(channel[4u * m + 3u]) - w_zero * x_sum + taps * p.x_zero * w_zero;
#else
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
#endif
  float real = float(acc) * uintBitsToFloat(channel[4u * m + 2u]);
  if (HAS_RESIDUAL) real += p.r_scale * float(BYTE_AT(residual, e, R_SIGNED) - p.r_zero);
  return requantize(activation(ACT, real, p.act_a, p.act_b, 0.0), p.y_scale, p.y_zero, Y_SIGNED);
}

CODE_WORDS_MAIN(requantized, y, p.n)
