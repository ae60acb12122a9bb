// @mote bindings=3 push=12
// QuantizeLinear of f32 (or f16-stored) X into i8 or u8, per tensor or per
// axis (the host passes the elements after the axis and the axis' length;
// per tensor, 1 and 1): round half to even of x / scale plus the zero
// point, saturated (NaN: code 0), as the CPU kernel. One invocation per
// word of Y: four outputs, so no two invocations share one.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "quant.glsl"

layout(constant_id = 3) const bool Y_SIGNED = false;
TENSOR_RO(0, x)
WORDS_RO(1, params)  // per parameter k: scale's float bits, zero point
WORDS_WO(2, y)       // bytes
layout(push_constant) uniform Push {
  uint n, inner, count;
} p;

int code_of(uint i) {
  uint k = i / p.inner % p.count;
  // A NaN (X's, or 0 / 0 of a zero scale) gives code 0, as the reference
  // and CPU kernels.
  float v = LOAD(x, i) / uintBitsToFloat(params[2u * k]);
  if (isnan(v)) return 0;
  float q = roundEven(clamp(v, -512.0, 512.0)) + float(int(params[2u * k + 1u]));
  return int(clamp(q, Y_SIGNED ? -128.0 : 0.0, Y_SIGNED ? 127.0 : 255.0));
}

CODE_WORDS_MAIN(code_of, y, p.n)
