// @mote bindings=3 push=100
// ConvGradWeight: dW[m, c, k] = sum over images and output positions of
// X at the tap k of that position times dY[n, m, position], for 1 to 3
// spatial dims (the host pads 1-D and 2-D to 3-D with unit dims). Weights are
// few and the sum is long (N * output pixels), so one workgroup owns one
// weight element: its invocations stride over the sum and fold their partial
// sums in shared memory, in a fixed order, so results are deterministic.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "workgroup_reduce.glsl"

TENSOR_RO(0, x)
TENSOR_RO(1, dy)
TENSOR_WO(2, dw)
layout(push_constant) uniform Push {
  uint n_weights;    // elements of dW
  uint terms;        // N * output pixels: the length of each sum
  uint out_pixels;
  uint in_channels;  // of X (all groups)
  uint out_channels;
  uint in_per_group;
  uint out_per_group;
  uint in_size[3];
  uint out_size[3];
  uint kernel[3];
  int stride[3];
  int dilation[3];
  int pad_begin[3];
} p;

void main() {
  uint w = wg_row();
  if (w >= p.n_weights) return;  // the whole workgroup, before any barrier
  uint taps = p.kernel[0] * p.kernel[1] * p.kernel[2];
  uint tap = w % taps, c = w / taps % p.in_per_group, m = w / taps / p.in_per_group;
  ivec3 k_at = ivec3(tap / (p.kernel[1] * p.kernel[2]), tap / p.kernel[2] % p.kernel[1], tap % p.kernel[2]);
  ivec3 stride = ivec3(p.stride[0], p.stride[1], p.stride[2]);
  // Where output position 0 reads X for this tap.
  ivec3 offset = k_at * ivec3(p.dilation[0], p.dilation[1], p.dilation[2]) -
                 ivec3(p.pad_begin[0], p.pad_begin[1], p.pad_begin[2]);
  ivec3 size = ivec3(p.in_size[0], p.in_size[1], p.in_size[2]);
  uint in_pixels = uint(size.x * size.y * size.z);
  uint channel = m / p.out_per_group * p.in_per_group + c;  // X's channel for this group

  float acc = 0.0;
  for (uint j = gl_LocalInvocationID.x; j < p.terms; j += gl_WorkGroupSize.x) {
    uint n = j / p.out_pixels, o = j % p.out_pixels;
    ivec3 o_at = ivec3(o / (p.out_size[1] * p.out_size[2]), o / p.out_size[2] % p.out_size[1], o % p.out_size[2]);
    ivec3 pos = o_at * stride + offset;
    if (any(lessThan(pos, ivec3(0))) || any(greaterThanEqual(pos, size))) continue;
    uint xi = (n * p.in_channels + channel) * in_pixels + uint((pos.x * size.y + pos.y) * size.z + pos.z);
    acc = fma(LOAD(x, xi), LOAD(dy, (n * p.out_channels + m) * p.out_pixels + o), acc);
  }
  float total = wg_reduce(RED_SUM, acc);
  if (gl_LocalInvocationID.x == 0u) STORE(dw, w, total);
}
