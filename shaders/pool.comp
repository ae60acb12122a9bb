// @mote bindings=3 push=88
// MaxPool and AveragePool over up to three spatial dims (the host pads 1-D
// and 2-D windows to 3-D with unit dims), one invocation per output element.
// Geometry (output sizes, pads from auto_pad and ceil_mode) comes resolved
// from the host's pool_geometry(). Like the reference: a tap counts when it
// lands in the input; with COUNT_PAD, taps in the declared padding count as
// zeros, but not the space past it that a ceil_mode window may reach. A
// window with no tap in the input gives -inf (max) or 0 (average).
// WITH_INDICES: MaxPool's Indices output (flat index into all of X, i64).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(constant_id = 3) const bool IS_MAX = true;
layout(constant_id = 4) const bool COUNT_PAD = false;
layout(constant_id = 5) const bool WITH_INDICES = false;
TENSOR_RO(0, x)
TENSOR_WO(1, y)
WORDS_WO(2, indices)
layout(push_constant) uniform Push {
  uint n;  // output elements: planes * output spatial size
  uint in_size[3];
  uint out_size[3];
  uint kernel[3];
  uint stride[3];
  uint dilation[3];
  uint pad_begin[3];
  uint pad_end[3];
} p;

void main() {
  uint i = linear_id();
  if (i >= p.n) return;
  uint plane_out = p.out_size[0] * p.out_size[1] * p.out_size[2];
  uint plane = i / plane_out, o = i % plane_out;
  ivec3 start = ivec3(o / (p.out_size[1] * p.out_size[2]), o / p.out_size[2] % p.out_size[1], o % p.out_size[2]) *
                    ivec3(p.stride[0], p.stride[1], p.stride[2]) -
                ivec3(p.pad_begin[0], p.pad_begin[1], p.pad_begin[2]);
  ivec3 size = ivec3(p.in_size[0], p.in_size[1], p.in_size[2]);
  ivec3 pad_lo = -ivec3(p.pad_begin[0], p.pad_begin[1], p.pad_begin[2]);
  ivec3 pad_hi = size + ivec3(p.pad_end[0], p.pad_end[1], p.pad_end[2]);
  uint plane_base = plane * uint(size.x * size.y * size.z);
  float best = uintBitsToFloat(0xff800000u), sum = 0.0;
  int best_at = -1;
  uint inside = 0u, padded = 0u;
  for (uint kd = 0u; kd < p.kernel[0]; ++kd) {
    for (uint kh = 0u; kh < p.kernel[1]; ++kh) {
      for (uint kw = 0u; kw < p.kernel[2]; ++kw) {
        ivec3 pos = start + ivec3(kd * p.dilation[0], kh * p.dilation[1], kw * p.dilation[2]);
        if (all(greaterThanEqual(pos, pad_lo)) && all(lessThan(pos, pad_hi))) ++padded;
        if (any(lessThan(pos, ivec3(0))) || any(greaterThanEqual(pos, size))) continue;
        ++inside;
        uint at = plane_base + uint((pos.x * size.y + pos.y) * size.z + pos.z);
        float v = LOAD(x, at);
        sum += v;
        // The first NaN or the first occurrence of the max wins.
        if (isnan(v) ? !isnan(best) : v > best) {
          best = v;
          best_at = int(at);
        }
      }
    }
  }
  if (IS_MAX) {
    STORE(y, i, best);
    if (WITH_INDICES) STORE_I64(indices, i, best_at);
  } else {
    uint count = COUNT_PAD ? padded : inside;
    STORE(y, i, count > 0u ? sum / float(count) : 0.0);
  }
}
