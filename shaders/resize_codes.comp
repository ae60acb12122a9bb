// @mote bindings=3 push=80
// Resize in nearest mode of 8-bit tensors (an int8 model's upsampling
// between quantised ops: codes are copied, the scale and zero point kept),
// sources as resize.comp's (resize_coords.glsl). One invocation per word of
// Y: four outputs, so no two invocations share one.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

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

void main() {
  uint first = linear_id() * 4u;
  if (first >= p.n) return;
  uint word = 0u;
  for (uint k = 0u; k < 4u && first + k < p.n; ++k) {
    uint step[6];
    float weight[6];
    uint at = resize_source(first + k, step, weight);
    word |= bitfieldExtract(x[at >> 2u], int(at & 3u) * 8, 8) << (8u * k);
  }
  y[first >> 2u] = word;
}
