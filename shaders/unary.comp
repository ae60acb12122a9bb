// @mote bindings=2 push=16
// Elementwise activation y = f(x); f is chosen by the ACT specialisation
// constant (codes in activation.glsl), so each op gets its own pipeline with
// the switch folded away.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "activation.glsl"

layout(constant_id = 3) const int ACT = 0;
TENSOR_RO(0, x)
TENSOR_WO(1, y)
layout(push_constant) uniform Push { uint n; float alpha; float beta; float gamma; } p;

void main() {
  uint i = linear_id();
  if (i >= p.n) return;
  STORE(y, i, activation(ACT, LOAD(x, i), p.alpha, p.beta, p.gamma));
}
