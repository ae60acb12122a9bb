// @mote bindings=2 push=128
// Data movement by index arithmetic, for every dtype: each output element
// copies one input element, or a constant. One source serves Reshape-likes,
// Transpose, Slice, Split, Concat, Expand, Tile, Pad and DepthToSpace /
// SpaceToDepth; the host only chooses the view.
//
// Output element e has coordinates c_d over `dims` (right-aligned in 6
// slots). It reads input element  base + sum_d x_d * stride_d  where
// x_d = c_d + start_d, and MODE says what happens when x_d leaves [0, lim_d):
// 0 never does (unchecked), 1 the element is `value`, 2 clamps (edge),
// 3 mirrors without repeating the edge (reflect), 4 wraps (Tile, Pad wrap).
//
// Concat writes each input as rows of a wider output: with blk != 0, domain
// element e lands on output element (e / blk) * dst_row + dst_off + e % blk
// (the host guarantees packed words never straddle two inputs).
//
// KIND says how elements are stored (see move.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(constant_id = 3) const int MODE = 0;
layout(constant_id = 4) const int KIND = 0;

TENSOR_RO(0, src_t)
WORDS_RO(0, src_w)
TENSOR_WO(1, dst_t)
WORDS_WO(1, dst_w)

layout(push_constant) uniform Push {
  uint n;        // domain elements
  uint rank;
  int base;
  uint value;    // the constant's bits (float bits for KIND 0)
  uint blk;      // Concat row mapping, 0 = none
  uint dst_row;
  uint dst_off;
  uint value_hi; // its high word for KIND 2
  uint dims[6];
  int stride[6];
  int start[6];
  uint lim[6];
} p;

// x mod m in [0, m) for negative x too (GLSL leaves % of negatives undefined).
int floor_mod(int x, int m) {
  return x >= 0 ? x % m : m - 1 - (-x - 1) % m;
}

// The input element that domain element e reads, or -1 for `value`.
int source(uint e) {
  uint rest = e;
  int offset = p.base;
  for (int d = 5; d >= 6 - int(p.rank); --d) {
    int x = int(rest % p.dims[d]) + p.start[d];
    rest /= p.dims[d];
    int lim = int(p.lim[d]);
    if (MODE != 0 && (x < 0 || x >= lim)) {
      if (MODE == 1) return -1;
      if (MODE == 2) x = clamp(x, 0, lim - 1);
      if (MODE == 3) {
        int period = 2 * (lim - 1);
        x = period == 0 ? 0 : floor_mod(x, period);
        if (x >= lim) x = period - x;
      }
      if (MODE == 4) x = floor_mod(x, lim);
    }
    offset += x * p.stride[d];
  }
  return offset;
}

uint destination(uint e) {
  return p.blk == 0u ? e : (e / p.blk) * p.dst_row + p.dst_off + e % p.blk;
}

#include "move.glsl"

void main() {
  move_unit(linear_id(), p.n, uvec2(p.value, p.value_hi));
}
