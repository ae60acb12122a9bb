// @mote bindings=6 push=16
// Inference BatchNormalization, elementwise: with c the channel of element i
// (x viewed as [N, C, inner]),
//   y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c].
// The parameters are read as they are (not folded on the host) so that they
// may be graph inputs, and keep f32 precision in f16-storage sessions where a
// folded scale would be rounded to f16.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

TENSOR_RO(0, x)
TENSOR_RO(1, scale)
TENSOR_RO(2, bias)
TENSOR_RO(3, mean)
TENSOR_RO(4, variance)
TENSOR_WO(5, y)
layout(push_constant) uniform Push {
  uint n;
  uint channels;
  uint inner;
  float epsilon;
} p;

void main() {
  uint i = linear_id();
  if (i >= p.n) return;
  uint c = (i / p.inner) % p.channels;
  float v = (LOAD(x, i) - LOAD(mean, c)) / sqrt(LOAD(variance, c) + p.epsilon);
  STORE(y, i, v * LOAD(scale, c) + LOAD(bias, c));
}
