// @mote bindings=3 push=16
// ONNX Gather along one axis, for every dtype: data viewed as
// [outer, dim, inner] and the output as [outer, count, inner] reads
// data[o, indices[j], i]. Negative indices count from the end; indices out
// of range (which the CPU rejects) are clamped rather than read wild.
// IDX64: the indices are i64 (else i32). KIND as in move.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(constant_id = 3) const int KIND = 0;
layout(constant_id = 4) const bool IDX64 = true;

TENSOR_RO(0, src_t)
WORDS_RO(0, src_w)
WORDS_RO(1, indices)
TENSOR_WO(2, dst_t)
WORDS_WO(2, dst_w)

layout(push_constant) uniform Push {
  uint n;
  uint inner;
  uint dim;
  uint count;  // number of indices
} p;

int source(uint e) {
  uint i = e % p.inner;
  uint j = (e / p.inner) % p.count;
  uint o = e / (p.inner * p.count);
  int k = IDX64 ? LOAD_I64(indices, j) : int(indices[j]);
  if (k < 0) k += int(p.dim);
  k = clamp(k, 0, int(p.dim) - 1);
  return int((o * p.dim + uint(k)) * p.inner + i);
}

uint destination(uint e) { return e; }

#include "move.glsl"

void main() {
  move_unit(linear_id(), p.n, uvec2(0u));
}
