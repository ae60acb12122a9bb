// @mote bindings=2 push=20
// Packs an 8-bit [N, C, H, W] tensor four channels to a word for the
// dot-product convolution (qlinear_conv.glsl): word (n, c4, pixel) holds
// the codes of channels 4 c4 .. 4 c4 + 3 at that pixel, byte k channel
// 4 c4 + k; channels past C take `fill` (X's zero point). One invocation
// per word.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

WORDS_RO(0, x)  // bytes, [N, C, H, W]
WORDS_WO(1, y)  // words, [N, C4, H, W]
layout(push_constant) uniform Push {
  uint words, channels, pixels, channel_words;
  uint fill;  // the byte of missing channels
} p;

void main() {
  uint i = linear_id();
  if (i >= p.words) return;
  uint pixel = i % p.pixels, image_c4 = i / p.pixels;
  uint c4 = image_c4 % p.channel_words, image = image_c4 / p.channel_words;
  uint word = 0u;
  for (uint k = 0u; k < 4u; ++k) {
    uint c = 4u * c4 + k;
    uint e = (image * p.channels + c) * p.pixels + pixel;
    uint code = c < p.channels ? bitfieldExtract(x[e >> 2u], int(e & 3u) * 8, 8) : p.fill;
    word |= code << (8u * k);
  }
  y[i] = word;
}
