// @mote bindings=3 push=112
// QLinearAdd and QLinearMul (runtime/ops/qlinear_elementwise.hpp) with ONNX
// broadcasting up to rank 6, as binary.comp: the host passes the output
// dims and each input's element strides (0 along broadcast axes). In f32 as
// the CPU kernel: ra = (a - A_zero) * A_scale, rb likewise, then the sum or
// product, the fused Relu or Clip, and the requantisation to C. One
// invocation per word of C: four outputs, so no two invocations share one.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "activation.glsl"
#include "quant.glsl"

layout(constant_id = 3) const bool MULTIPLY = false;
layout(constant_id = 4) const bool IS_SIGNED = false;  // A, B and C share one type
layout(constant_id = 5) const int ACT = 0;
WORDS_RO(0, a)
WORDS_RO(1, b)
WORDS_WO(2, c)
layout(push_constant) uniform Push {
  uint n;
  uint rank;
  uint dims[6];
  uint a_strides[6];
  uint b_strides[6];
  float a_scale, b_scale, c_scale;
  int a_zero, b_zero, c_zero;
  float act_a, act_b;
} p;

int output_code(uint i) {
  uint rest = i, ia = 0u, ib = 0u;
  // dims and strides are right-aligned in 6 slots.
  for (int d = 5; d >= 6 - int(p.rank); --d) {
    uint coord = rest % p.dims[d];
    rest /= p.dims[d];
    ia += coord * p.a_strides[d];
    ib += coord * p.b_strides[d];
  }
  float ra = float(BYTE_AT(a, ia, IS_SIGNED) - p.a_zero) * p.a_scale;
  float rb = float(BYTE_AT(b, ib, IS_SIGNED) - p.b_zero) * p.b_scale;
  float real = activation(ACT, MULTIPLY ? ra * rb : ra + rb, p.act_a, p.act_b, 0.0);
  return requantize(real, p.c_scale, p.c_zero, IS_SIGNED);
}

CODE_WORDS_MAIN(output_code, c, p.n)
