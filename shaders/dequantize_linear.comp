// @mote bindings=3 push=12
// DequantizeLinear of i8 or u8 X into f32 (or f16-stored) Y, per tensor or
// per axis as quantize_linear.comp: (x - zero point) * scale, as the CPU
// kernel. One invocation per element.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "quant.glsl"

layout(constant_id = 3) const bool X_SIGNED = false;
WORDS_RO(0, x)       // bytes
WORDS_RO(1, params)  // per parameter k: scale's float bits, zero point
TENSOR_WO(2, y)
layout(push_constant) uniform Push {
  uint n, inner, count;
} p;

void main() {
  uint i = linear_id();
  if (i >= p.n) return;
  uint k = i / p.inner % p.count;
  STORE(y, i, float(BYTE_AT(x, i, X_SIGNED) - int(params[2u * k + 1u])) * uintBitsToFloat(params[2u * k]));
}
