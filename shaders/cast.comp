// @mote bindings=2 push=4
// Cast between f32, f16, i32, i64 and bool with runtime/ops/cast.hpp's
// rules: float to integer truncates toward zero, NaN gives 0 and values out
// of range saturate; integers narrow by wrapping; to bool is != 0; from bool
// is 0 or 1. FROM and TO are element kinds (below); packed outputs (bool,
// f16 data) give each invocation a whole output word.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#define KIND_FLOAT 0  // F32 tensor: f32 or f16 storage
#define KIND_I32 1
#define KIND_I64 2
#define KIND_BOOL 3   // bytes, four to a word
#define KIND_HALF 4   // F16 data: 16-bit values, two to a word

layout(constant_id = 3) const int FROM = 0;
layout(constant_id = 4) const int TO = 0;

TENSOR_RO(0, src_t)
WORDS_RO(0, src_w)
TENSOR_WO(1, dst_t)
WORDS_WO(1, dst_w)

layout(push_constant) uniform Push { uint n; } p;

const float kTwo32 = 4294967296.0;

// A source element is read as a float (float kinds) or as an i64 word pair
// (lo, hi) (integer kinds and bool).
bool is_float_source() { return FROM == KIND_FLOAT || FROM == KIND_HALF; }

float load_float(uint e) {
  if (FROM == KIND_FLOAT) return LOAD(src_t, e);
  return unpackHalf2x16(src_w[e / 2u] >> (e % 2u * 16u)).x;
}

uvec2 load_integer(uint e) {
  if (FROM == KIND_I32) {
    int v = int(src_w[e]);
    return uvec2(uint(v), v < 0 ? 0xffffffffu : 0u);
  }
  if (FROM == KIND_I64) return uvec2(src_w[2u * e], src_w[2u * e + 1u]);
  uint byte = (src_w[e / 4u] >> (e % 4u * 8u)) & 0xffu;
  return uvec2(byte != 0u ? 1u : 0u, 0u);
}

// Exact below 2^24 and within rounding of f32 past 2^31 (where the two
// terms cannot cancel).
float integer_to_float(uvec2 v) {
  if (int(v.y) == (int(v.x) >> 31)) return float(int(v.x));
  return float(int(v.y)) * kTwo32 + float(v.x);
}

// Float to i64 truncating toward zero; NaN 0, saturating at +-2^63.
uvec2 float_to_i64(float f) {
  if (isnan(f)) return uvec2(0u);
  if (f <= -9223372036854775808.0) return uvec2(0u, 0x80000000u);
  if (f >= 9223372036854775808.0) return uvec2(0xffffffffu, 0x7fffffffu);
  if (abs(f) < 2147483648.0) {
    int v = int(f);
    return uvec2(uint(v), v < 0 ? 0xffffffffu : 0u);
  }
  // Past 2^31 a float is an integer multiple of 2^8, so both parts are exact.
  float hi = floor(f / kTwo32);
  return uvec2(uint(f - hi * kTwo32), uint(int(hi)));
}

int float_to_i32(float f) {
  if (isnan(f)) return 0;
  if (f <= -2147483648.0) return int(0x80000000u);
  if (f >= 2147483648.0) return 0x7fffffff;
  return int(f);
}

// Element e converted to a float (for the float kinds)...
float as_float(uint e) { return is_float_source() ? load_float(e) : integer_to_float(load_integer(e)); }

// ...or to the bits of TO: low bits of .x, or the word pair for i64.
uvec2 as_bits(uint e) {
  if (TO == KIND_BOOL) {
    bool nonzero = is_float_source() ? load_float(e) != 0.0 : load_integer(e) != uvec2(0u);
    return uvec2(nonzero ? 1u : 0u, 0u);
  }
  if (TO == KIND_HALF) return uvec2(packHalf2x16(vec2(as_float(e), 0.0)) & 0xffffu, 0u);
  if (TO == KIND_I32) return uvec2(uint(is_float_source() ? float_to_i32(load_float(e)) : int(load_integer(e).x)), 0u);
  if (TO == KIND_I64) return is_float_source() ? float_to_i64(load_float(e)) : load_integer(e);
  return uvec2(floatBitsToUint(as_float(e)), 0u);
}

void main() {
  uint u = linear_id();
  if (TO == KIND_BOOL || TO == KIND_HALF) {
    const uint per = TO == KIND_BOOL ? 4u : 2u;
    uint first = u * per;
    if (first >= p.n) return;
    uint word = 0u;
    for (uint k = 0u; k < per && first + k < p.n; ++k) word |= as_bits(first + k).x << (k * (32u / per));
    dst_w[u] = word;
    return;
  }
  if (u >= p.n) return;
  if (TO == KIND_FLOAT) {
    STORE(dst_t, u, as_float(u));
  } else if (TO == KIND_I32) {
    dst_w[u] = as_bits(u).x;
  } else {
    uvec2 v = as_bits(u);
    dst_w[2u * u] = v.x;
    dst_w[2u * u + 1u] = v.y;
  }
}
