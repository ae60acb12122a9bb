// @mote bindings=4 push=32
// Winograd output transform (see winograd.glsl): for each output channel k
// and tile t, the products m[point][k][t] of the batched GEMM become the
// TILE x TILE outputs A^T m A, with the bias, the residual (a tensor of Y's
// shape) and the fused activation, stored where they fall inside Y (the
// last tiles of a row or column may overhang it). One invocation per (k, t).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "activation.glsl"
#include "winograd.glsl"

layout(constant_id = 4) const int ACT = 0;
layout(constant_id = 5) const bool HAS_BIAS = false;
layout(constant_id = 6) const bool HAS_RESIDUAL = false;

TENSOR_RO(0, m)
TENSOR_RO(1, bias)      // bound to M when absent
TENSOR_RO(2, residual)  // bound to M when absent
TENSOR_WO(3, y)
layout(push_constant) uniform Push {
  uint out_channels, out_h, out_w;
  uint tiles_w, tiles_per_image, tiles;
  float act_a, act_b;
} p;

void main() {
  uint id = linear_id();
  if (id >= p.out_channels * p.tiles) return;
  uint k = id / p.tiles, t = id % p.tiles;
  uint image = t / p.tiles_per_image, r = t % p.tiles_per_image;
  uint oy0 = (r / p.tiles_w) * TILE, ox0 = (r % p.tiles_w) * TILE;

  uint point_stride = p.out_channels * p.tiles;
  float s[6][6];
  [[unroll]] for (uint i = 0u; i < POINTS_SIDE; ++i) {
    [[unroll]] for (uint j = 0u; j < POINTS_SIDE; ++j) s[i][j] = LOAD(m, (i * POINTS_SIDE + j) * point_stride + id);
  }
  // Down each column (TILE rows result), then along each of those rows.
  [[unroll]] for (uint j = 0u; j < POINTS_SIDE; ++j) {
    float l[6];
    [[unroll]] for (uint i = 0u; i < POINTS_SIDE; ++i) l[i] = s[i][j];
    output_line(l);
    [[unroll]] for (uint i = 0u; i < TILE; ++i) s[i][j] = l[i];
  }
  float add = HAS_BIAS ? LOAD(bias, k) : 0.0;
  uint plane = (image * p.out_channels + k) * p.out_h * p.out_w;
  [[unroll]] for (uint i = 0u; i < TILE; ++i) {
    float l[6] = s[i];
    output_line(l);
    uint oy = oy0 + i;
    [[unroll]] for (uint j = 0u; j < TILE; ++j) {
      uint ox = ox0 + j;
      if (oy < p.out_h && ox < p.out_w) {
        uint at = plane + oy * p.out_w + ox;
        float v = l[j] + add;
        if (HAS_RESIDUAL) v += LOAD(residual, at);
        STORE(y, at, activation(ACT, v, p.act_a, p.act_b, 0.0));
      }
    }
  }
}
