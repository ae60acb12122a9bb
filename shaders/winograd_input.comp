// @mote bindings=2 push=32
// Winograd input transform (see winograd.glsl): for each input channel c and
// tile t (over all images, tiles of one image row-major), the (TILE + 2)^2
// block of X whose outputs the tile covers (zero outside X: the padding)
// becomes V = B^T d B, written to v[point][c][t], so that each point is one
// [channels x tiles] matrix of the batched GEMM that follows. One invocation
// per (c, t), consecutive invocations along t: the writes are contiguous.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "winograd.glsl"

TENSOR_RO(0, x)
TENSOR_WO(1, v)
layout(push_constant) uniform Push {
  uint channels, in_h, in_w;
  uint tiles_w;          // tiles per row of one image
  uint tiles_per_image;
  uint tiles;            // over all images
  int pad_h, pad_w;      // top and left padding
} p;

void main() {
  uint id = linear_id();
  if (id >= p.channels * p.tiles) return;
  uint c = id / p.tiles, t = id % p.tiles;
  uint image = t / p.tiles_per_image, r = t % p.tiles_per_image;
  int iy0 = int((r / p.tiles_w) * TILE) - p.pad_h, ix0 = int((r % p.tiles_w) * TILE) - p.pad_w;
  uint base = (image * p.channels + c) * p.in_h * p.in_w;

  float d[6][6];
  [[unroll]] for (uint i = 0u; i < POINTS_SIDE; ++i) {
    int iy = iy0 + int(i);
    [[unroll]] for (uint j = 0u; j < POINTS_SIDE; ++j) {
      int ix = ix0 + int(j);
      d[i][j] = uint(iy) < p.in_h && uint(ix) < p.in_w ? LOAD(x, base + uint(iy) * p.in_w + uint(ix)) : 0.0;
    }
  }
  // Down each column, then along each row.
  [[unroll]] for (uint j = 0u; j < POINTS_SIDE; ++j) {
    float l[6];
    [[unroll]] for (uint i = 0u; i < POINTS_SIDE; ++i) l[i] = d[i][j];
    input_line(l);
    [[unroll]] for (uint i = 0u; i < POINTS_SIDE; ++i) d[i][j] = l[i];
  }
  uint point_stride = p.channels * p.tiles;
  [[unroll]] for (uint i = 0u; i < POINTS_SIDE; ++i) {
    float l[6] = d[i];
    input_line(l);
    [[unroll]] for (uint j = 0u; j < POINTS_SIDE; ++j) STORE(v, (i * POINTS_SIDE + j) * point_stride + id, l[j]);
  }
}
