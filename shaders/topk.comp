// @mote bindings=3 push=16
// TopK along one axis of x viewed as [outer, axis, inner]; one workgroup
// per slice selects its k elements in output order. Each pass takes the
// first element, by TopK's total order (value, NaN above every number, then
// lower index), among those after the previous pick: every invocation scans
// its strided share of the slice, then a shared-memory tree picks the
// winner. O(k * axis / workgroup) per invocation; the host sends slices
// where that is too much to the CPU. Values go to binding 1, i64 indices to
// binding 2 when WITH_INDICES.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(constant_id = 3) const bool LARGEST = true;
layout(constant_id = 4) const bool WITH_INDICES = true;
TENSOR_RO(0, x)
TENSOR_WO(1, values)
WORDS_WO(2, indices)
layout(push_constant) uniform Push {
  uint slices;  // outer * inner
  uint axis;
  uint inner;
  uint k;
} p;

#define NONE 0xffffffffu
// The host keeps the workgroup a power of two of at most 256 invocations.
shared float pick_value[256];
shared uint pick_index[256];

// a > b with NaN above every number (runtime/ops/topk.hpp's topk_greater).
bool greater(float a, float b) {
  if (isnan(a)) return !isnan(b);
  if (isnan(b)) return false;
  return a > b;
}

// Whether (a, ia) comes before (b, ib) in the output; index NONE (nothing
// picked) comes after everything.
bool before(float a, uint ia, float b, uint ib) {
  if (ib == NONE) return ia != NONE;
  if (ia == NONE) return false;
  if (LARGEST ? greater(a, b) : greater(b, a)) return true;
  if (LARGEST ? greater(b, a) : greater(a, b)) return false;
  return ia < ib;
}

void main() {
  uint slice = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  if (slice >= p.slices) return;  // uniform across the workgroup
  uint lid = gl_LocalInvocationID.x;
  uint outer = slice / p.inner, inner = slice % p.inner;
  uint base = outer * p.axis * p.inner + inner;
  float prev = 0.0;
  uint prev_k = NONE;  // nothing picked yet: every element qualifies
  for (uint j = 0u; j < p.k; ++j) {
    float best = 0.0;
    uint best_k = NONE;
    for (uint k = lid; k < p.axis; k += gl_WorkGroupSize.x) {
      float v = LOAD(x, base + k * p.inner);
      if (prev_k != NONE && !before(prev, prev_k, v, k)) continue;
      if (before(v, k, best, best_k)) {
        best = v;
        best_k = k;
      }
    }
    pick_value[lid] = best;
    pick_index[lid] = best_k;
    barrier();
    for (uint stride = gl_WorkGroupSize.x / 2u; stride > 0u; stride /= 2u) {
      uint other = lid + stride;
      if (lid < stride && before(pick_value[other], pick_index[other], pick_value[lid], pick_index[lid])) {
        pick_value[lid] = pick_value[other];
        pick_index[lid] = pick_index[other];
      }
      barrier();
    }
    prev = pick_value[0];
    prev_k = pick_index[0];
    barrier();  // before the next pass overwrites the picks
    if (lid == 0u) {
      uint dst = (outer * p.k + j) * p.inner + inner;
      STORE(values, dst, prev);
      if (WITH_INDICES) STORE_I64(indices, dst, prev_k);
    }
  }
}
