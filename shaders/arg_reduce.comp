// @mote bindings=2 push=12
// ArgMax / ArgMin (IS_MAX) along one axis of x viewed as [outer, axis,
// inner]. Ties keep the first index unless LAST (select_last_index); a NaN
// beats every number, as in the reference's arg_beats(). Indices are
// written as i64.
//
// PER_THREAD = 1: one invocation per output scans its slice (short or
// interleaved slices). PER_THREAD = 0: one workgroup per output, each
// invocation scanning a strided share, then a shared-memory tree (long
// contiguous slices, such as logits over a vocabulary).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(constant_id = 3) const bool IS_MAX = true;
layout(constant_id = 4) const bool LAST = false;
layout(constant_id = 5) const bool PER_THREAD = true;
TENSOR_RO(0, x)
WORDS_WO(1, indices)
layout(push_constant) uniform Push {
  uint n;  // outer * inner
  uint axis;
  uint inner;
} p;

// Whether (a at index ia) wins over (b at ib): the order in which a scan
// with arg_beats() ends on the winner, so partial winners combine in any order.
bool wins(float a, uint ia, float b, uint ib) {
  bool a_nan = isnan(a), b_nan = isnan(b);
  if (a_nan != b_nan) return a_nan;
  if (a_nan || a == b) return LAST ? ia > ib : ia < ib;
  return IS_MAX ? a > b : a < b;
}

// The host keeps the workgroup a power of two of at most 256 invocations.
shared float tree_value[256];
shared uint tree_index[256];

void main() {
  uint lid = gl_LocalInvocationID.x, step = gl_WorkGroupSize.x;
  uint i = PER_THREAD ? linear_id() : gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  if (i >= p.n) return;  // uniform across the workgroup when !PER_THREAD
  uint base = (i / p.inner) * p.axis * p.inner + i % p.inner;
  uint first = PER_THREAD ? 0u : min(lid, p.axis - 1u);
  float best = LOAD(x, base + first * p.inner);
  uint best_k = first;
  for (uint k = first + (PER_THREAD ? 1u : step); k < p.axis; k += PER_THREAD ? 1u : step) {
    float v = LOAD(x, base + k * p.inner);
    if (wins(v, k, best, best_k)) {
      best = v;
      best_k = k;
    }
  }
  if (!PER_THREAD) {
    tree_value[lid] = best;
    tree_index[lid] = best_k;
    barrier();
    for (uint stride = step / 2u; stride > 0u; stride /= 2u) {
      uint other = lid + stride;
      if (lid < stride && wins(tree_value[other], tree_index[other], tree_value[lid], tree_index[lid])) {
        tree_value[lid] = tree_value[other];
        tree_index[lid] = tree_index[other];
      }
      barrier();
    }
    if (lid != 0u) return;
    best_k = tree_index[0];
  }
  STORE_I64(indices, i, best_k);
}
