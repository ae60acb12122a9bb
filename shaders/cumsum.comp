// @mote bindings=2 push=12
// CumSum along one axis of x viewed as [outer, axis, inner]; a line is one
// (outer, inner) pair, its elements `inner` apart. EXCLUSIVE: each output
// is the total before its element; REVERSE: totals run from the line's end.
//
// PER_THREAD = 1: one invocation per line keeps the running total (short
// or interleaved lines). PER_THREAD = 0: one workgroup per line scans it in
// chunks of one element per invocation (a shared-memory Hillis-Steele scan),
// carrying each chunk's total into the next (long lines).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(constant_id = 3) const bool EXCLUSIVE = false;
layout(constant_id = 4) const bool REVERSE = false;
layout(constant_id = 5) const bool PER_THREAD = true;
TENSOR_RO(0, x)
TENSOR_WO(1, y)
layout(push_constant) uniform Push {
  uint n;  // outer * inner
  uint axis;
  uint inner;
} p;

// The host keeps the workgroup a power of two of at most 256 invocations.
shared float partial[256];

// Position along the line of the element scanned at `step`.
uint position(uint step) { return REVERSE ? p.axis - 1u - step : step; }

void main() {
  uint line = PER_THREAD ? linear_id() : gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  if (line >= p.n) return;  // uniform across the workgroup when !PER_THREAD
  uint base = (line / p.inner) * p.axis * p.inner + line % p.inner;
  if (PER_THREAD) {
    float total = 0.0;
    for (uint step = 0u; step < p.axis; ++step) {
      uint at = base + position(step) * p.inner;
      float v = LOAD(x, at);
      if (EXCLUSIVE) STORE(y, at, total);
      total += v;
      if (!EXCLUSIVE) STORE(y, at, total);
    }
    return;
  }
  uint lid = gl_LocalInvocationID.x, size = gl_WorkGroupSize.x;
  float carry = 0.0;
  for (uint chunk = 0u; chunk < p.axis; chunk += size) {
    uint step = chunk + lid;
    bool in_line = step < p.axis;
    uint at = base + position(min(step, p.axis - 1u)) * p.inner;
    partial[lid] = in_line ? LOAD(x, at) : 0.0;
    barrier();
    for (uint offset = 1u; offset < size; offset *= 2u) {
      float add = lid >= offset ? partial[lid - offset] : 0.0;
      barrier();
      partial[lid] += add;
      barrier();
    }
    float earlier = lid > 0u ? partial[lid - 1u] : 0.0;
    if (in_line) STORE(y, at, carry + (EXCLUSIVE ? earlier : partial[lid]));
    carry += partial[size - 1u];
    barrier();  // before the next chunk overwrites partial
  }
}
