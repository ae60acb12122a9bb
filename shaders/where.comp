// @mote bindings=4 push=104
// Where(cond, x, y) with ONNX broadcasting up to rank 6: the bool condition
// (bytes, read from words) picks x or y. The host passes the output dims and
// each input's element strides, 0 along broadcast axes. KIND: 0 float tensor,
// 1 one 32-bit word, 2 two words per element.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(constant_id = 3) const int KIND = 0;

WORDS_RO(0, cond)
TENSOR_RO(1, x_t)
WORDS_RO(1, x_w)
TENSOR_RO(2, y_t)
WORDS_RO(2, y_w)
TENSOR_WO(3, out_t)
WORDS_WO(3, out_w)

layout(push_constant) uniform Push {
  uint n;
  uint rank;
  uint dims[6];
  uint c_strides[6];
  uint x_strides[6];
  uint y_strides[6];
} p;

void main() {
  uint i = linear_id();
  if (i >= p.n) return;
  uint rest = i, ic = 0u, ix = 0u, iy = 0u;
  for (int d = 5; d >= 6 - int(p.rank); --d) {
    uint coord = rest % p.dims[d];
    rest /= p.dims[d];
    ic += coord * p.c_strides[d];
    ix += coord * p.x_strides[d];
    iy += coord * p.y_strides[d];
  }
  bool pick_x = ((cond[ic / 4u] >> (ic % 4u * 8u)) & 0xffu) != 0u;
  if (KIND == 0) {
    STORE(out_t, i, pick_x ? LOAD(x_t, ix) : LOAD(y_t, iy));
  } else if (KIND == 1) {
    out_w[i] = pick_x ? x_w[ix] : y_w[iy];
  } else {
    out_w[2u * i] = pick_x ? x_w[2u * ix] : y_w[2u * iy];
    out_w[2u * i + 1u] = pick_x ? x_w[2u * ix + 1u] : y_w[2u * iy + 1u];
  }
}
