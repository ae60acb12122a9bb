// @mote bindings=3 push=80
// Resize of 8-bit codes (an int8 model's resampling between quantised ops,
// the scale and zero point kept; runtime/ops/resize.hpp's
// resize_runs_on_codes): nearest copies them, LINEAR sums the corners' codes
// times their weights and rounds half to even. Sources as resize.comp's
// (resize_coords.glsl). One invocation per word of Y: four outputs, so no
// two invocations share one.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "quant.glsl"

layout(constant_id = 3) const bool LINEAR = false;
layout(constant_id = 4) const bool IS_SIGNED = false;

WORDS_RO(0, x)  // bytes
WORDS_RO(1, table)
WORDS_WO(2, y)  // bytes

layout(push_constant) uniform Push {
  uint n;
  uint rank;
  uint dims[6];
  uint in_strides[6];
  uint table_off[6];
} p;

#include "resize_coords.glsl"

int code_of(uint i) {
  uint step[6];
  float weight[6];
  uint lower = resize_source(i, step, weight);
  if (!LINEAR) return BYTE_AT(x, lower, IS_SIGNED);
  int axes = int(p.rank);
  float sum = 0.0;
  for (uint corner = 0u; corner < (1u << uint(axes)); ++corner) {
    float w = 1.0;
    uint offset = lower;
    for (int k = 0; k < axes; ++k) {
      int d = 5 - k;
      bool upper = ((corner >> uint(k)) & 1u) != 0u;
      w *= upper ? weight[d] : 1.0 - weight[d];
      if (upper) offset += step[d];
    }
    if (w != 0.0) sum += w * float(BYTE_AT(x, offset, IS_SIGNED));
  }
  return int(clamp(roundEven(sum), IS_SIGNED ? -128.0 : 0.0, IS_SIGNED ? 127.0 : 255.0));
}

CODE_WORDS_MAIN(code_of, y, p.n)
