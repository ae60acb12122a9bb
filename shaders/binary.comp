// @mote bindings=3 push=80
// c = a (op) b with ONNX multidirectional broadcasting, up to rank 6. The
// host passes the output dims and each input's element strides, 0 along
// broadcast axes; OP is a specialisation constant.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#define OP_ADD 0
#define OP_SUB 1
#define OP_MUL 2
#define OP_DIV 3
#define OP_POW 4
#define OP_MIN 5
#define OP_MAX 6
#define OP_PRELU 7

layout(constant_id = 3) const int OP = 0;
TENSOR_RO(0, a)
TENSOR_RO(1, b)
TENSOR_WO(2, c)
layout(push_constant) uniform Push {
  uint n;
  uint rank;
  uint dims[6];
  uint a_strides[6];
  uint b_strides[6];
} p;

// pow() is undefined for x < 0 and for 0^0 in GLSL; ONNX follows C's pow.
float power(float x, float y) {
  if (y == 0.0) return 1.0;
  if (x < 0.0) {
    if (fract(y) != 0.0) return uintBitsToFloat(0x7fc00000u);
    float r = pow(-x, y);
    return mod(y, 2.0) == 1.0 ? -r : r;
  }
  return pow(x, y);
}

float apply_op(float x, float y) {
  switch (OP) {
    case OP_ADD: return x + y;
    case OP_SUB: return x - y;
    case OP_MUL: return x * y;
    case OP_DIV: return x / y;
    case OP_POW: return power(x, y);
    case OP_MIN: return min(x, y);
    case OP_MAX: return max(x, y);
    case OP_PRELU: return x < 0.0 ? x * y : x;
  }
  return x;
}

void main() {
  uint i = linear_id();
  if (i >= p.n) return;
  uint rest = i, ia = 0u, ib = 0u;
  // dims and strides are right-aligned in 6 slots.
  for (int d = 5; d >= 6 - int(p.rank); --d) {
    uint coord = rest % p.dims[d];
    rest /= p.dims[d];
    ia += coord * p.a_strides[d];
    ib += coord * p.b_strides[d];
  }
  STORE(c, i, apply_op(LOAD(a, ia), LOAD(b, ib)));
}
