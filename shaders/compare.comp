// @mote bindings=3 push=80
// Comparisons and logic with a bool output: c = a (op) b with ONNX
// broadcasting up to rank 6 (strides as in binary.comp). Bools are bytes;
// each invocation writes one output word of four, so no 8-bit storage is
// needed. OP and the input KIND are specialisation constants. Not binds its
// input as both a and b.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#define OP_EQUAL 0
#define OP_LESS 1
#define OP_GREATER 2
#define OP_LESS_EQUAL 3
#define OP_GREATER_EQUAL 4
#define OP_AND 5
#define OP_OR 6
#define OP_NOT 7

// Input storage: float tensor, i32, i64 (compared exactly as word pairs), bool.
#define KIND_FLOAT 0
#define KIND_I32 1
#define KIND_I64 2
#define KIND_BOOL 3

layout(constant_id = 3) const int OP = 0;
layout(constant_id = 4) const int KIND = 0;

TENSOR_RO(0, a_t)
WORDS_RO(0, a_w)
TENSOR_RO(1, b_t)
WORDS_RO(1, b_w)
WORDS_WO(2, c)

layout(push_constant) uniform Push {
  uint n;
  uint rank;
  uint dims[6];
  uint a_strides[6];
  uint b_strides[6];
} p;

// Sign of x - y: -1, 0 or 1; `ordered` is false when a float is NaN.
int order(uint ia, uint ib, out bool ordered) {
  ordered = true;
  if (KIND == KIND_FLOAT) {
    float x = LOAD(a_t, ia), y = LOAD(b_t, ib);
    ordered = !(isnan(x) || isnan(y));
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (KIND == KIND_I32) {
    int x = int(a_w[ia]), y = int(b_w[ib]);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (KIND == KIND_I64) {
    // High words signed, low words unsigned.
    int xh = int(a_w[2u * ia + 1u]), yh = int(b_w[2u * ib + 1u]);
    if (xh != yh) return xh < yh ? -1 : 1;
    uint xl = a_w[2u * ia], yl = b_w[2u * ib];
    return xl < yl ? -1 : (xl > yl ? 1 : 0);
  }
  uint x = (a_w[ia / 4u] >> (ia % 4u * 8u)) & 0xffu, y = (b_w[ib / 4u] >> (ib % 4u * 8u)) & 0xffu;
  return x < y ? -1 : (x > y ? 1 : 0);
}

bool truth(uint ia, uint ib) {
  if (OP == OP_AND || OP == OP_OR || OP == OP_NOT) {
    bool x = ((a_w[ia / 4u] >> (ia % 4u * 8u)) & 0xffu) != 0u;
    bool y = ((b_w[ib / 4u] >> (ib % 4u * 8u)) & 0xffu) != 0u;
    return OP == OP_AND ? x && y : (OP == OP_OR ? x || y : !x);
  }
  bool ordered;
  int s = order(ia, ib, ordered);
  if (!ordered) return false;  // NaN compares false, Equal included
  switch (OP) {
    case OP_EQUAL: return s == 0;
    case OP_LESS: return s < 0;
    case OP_GREATER: return s > 0;
    case OP_LESS_EQUAL: return s <= 0;
    case OP_GREATER_EQUAL: return s >= 0;
  }
  return false;
}

void main() {
  uint first = linear_id() * 4u;
  if (first >= p.n) return;
  uint word = 0u;
  for (uint k = 0u; k < 4u && first + k < p.n; ++k) {
    uint rest = first + k, ia = 0u, ib = 0u;
    for (int d = 5; d >= 6 - int(p.rank); --d) {
      uint coord = rest % p.dims[d];
      rest /= p.dims[d];
      ia += coord * p.a_strides[d];
      ib += coord * p.b_strides[d];
    }
    if (truth(ia, ib)) word |= 1u << (k * 8u);
  }
  c[first / 4u] = word;
}
