// @mote bindings=3 push=80
// Resize, nearest or linear (LINEAR), up to rank 6, each output's source
// from the host's coordinate table (resize_coords.glsl); nearest uses only
// the lower index. Linear sums the 2^rank corners, skipping those of zero
// weight.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(constant_id = 3) const bool LINEAR = false;

TENSOR_RO(0, x)
WORDS_RO(1, table)
TENSOR_WO(2, y)

layout(push_constant) uniform Push {
  uint n;
  uint rank;
  uint dims[6];
  uint in_strides[6];
  uint table_off[6];
} p;

#include "resize_coords.glsl"

void main() {
  uint i = linear_id();
  if (i >= p.n) return;
  uint step[6];     // offset from an axis' lower to its upper index
  float weight[6];  // upper weight per axis
  uint lower = resize_source(i, step, weight);
  if (!LINEAR) {
    STORE(y, i, LOAD(x, lower));
    return;
  }
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
    if (w != 0.0) sum += w * LOAD(x, offset);
  }
  STORE(y, i, sum);
}
