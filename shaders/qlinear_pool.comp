// @mote bindings=2 push=104
// Pools of 8-bit quantised tensors, windows as pool.comp's
// (pool_window.glsl): MaxPool on codes (their order is the real values'
// order, and Y keeps X's scale and zero point; a window with no tap in X
// gives the type's lowest code), and QLinearAveragePool /
// QLinearGlobalAveragePool (the global one a window of the whole plane):
// the exact integer sum of (code - X_zero) over the counted taps (a padding
// tap that count_include_pad counts is a real 0, adding nothing), then
// X_scale * sum / count requantised to Y in f32. One invocation per word
// of Y: four outputs, so no two invocations share one.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "quant.glsl"

layout(constant_id = 3) const bool IS_MAX = true;
layout(constant_id = 4) const bool COUNT_PAD = false;
layout(constant_id = 5) const bool X_SIGNED = false;
layout(constant_id = 6) const bool Y_SIGNED = false;
WORDS_RO(0, x)
WORDS_WO(1, y)
layout(push_constant) uniform Push {
  uint n;  // output elements: planes * output spatial size
  uint in_size[3];
  uint out_size[3];
  uint kernel[3];
  uint stride[3];
  uint dilation[3];
  uint pad_begin[3];
  uint pad_end[3];
  float x_scale, y_scale;
  int x_zero, y_zero;
} p;

#include "pool_window.glsl"

int output_code(uint i) {
  uint plane = i / plane_outputs();
  ivec3 start = window_start(i % plane_outputs());
  uint plane_base = plane * plane_elements();
  int best = X_SIGNED ? -128 : 0, sum = 0;
  uint inside = 0u, padded = 0u;
  uvec3 k = uvec3(0u);
  for (uint t = 0u; t < window_taps(); ++t, next_tap(k)) {
    uint offset;
    bool in_padding;
    bool in_x = window_tap(start, k, offset, in_padding);
    if (in_padding) ++padded;
    if (!in_x) continue;
    ++inside;
    int code = BYTE_AT(x, plane_base + offset, X_SIGNED);
    best = max(best, code);
    sum += code - p.x_zero;
  }
  if (IS_MAX) return best;
  uint count = COUNT_PAD ? padded : inside;
  float mean = count > 0u ? float(sum) / float(count) : 0.0;
  return requantize(p.x_scale * mean, p.y_scale, p.y_zero, Y_SIGNED);
}

CODE_WORDS_MAIN(output_code, y, p.n)
