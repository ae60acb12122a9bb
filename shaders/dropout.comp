// @mote bindings=3 push=20
// Training-mode Dropout: y = x * scale where the element is kept, else 0.
// The keep draw is DropoutMask of runtime/ops/dropout.hpp step for step
// (MurmurHash3's finaliser absorbing seed and step 32 bits at a time, then
// two rounds per element index), so the GPU drops exactly the elements the
// CPU kernels drop. STEP64: the step input is i64 (two words), else i32.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(constant_id = 3) const bool STEP64 = true;
TENSOR_RO(0, x)
WORDS_RO(1, step)
TENSOR_WO(2, y)
layout(push_constant) uniform Push {
  uint n;
  uint seed_lo;
  uint seed_hi;
  uint threshold;  // dropped when the 24-bit draw is below
  float scale;     // 1 / (1 - ratio)
} p;

uint mix32(uint h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

void main() {
  uint i = linear_id();
  if (i >= p.n) return;
  uint step_lo = step[0];
  // An i32 step is sign-extended, as the CPU kernels widen it to i64.
  uint step_hi = STEP64 ? step[1] : (int(step_lo) < 0 ? 0xffffffffu : 0u);
  uint key = 0x9e3779b9u;
  key = mix32(key ^ p.seed_lo);
  key = mix32(key ^ p.seed_hi);
  key = mix32(key ^ step_lo);
  key = mix32(key ^ step_hi);
  uint draw = mix32(mix32(i ^ key) + key) >> 8;
  STORE(y, i, draw >= p.threshold ? LOAD(x, i) * p.scale : 0.0);
}
