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

#include "pool_window.glsl"

void main() {
  uint i = linear_id();
  if (i >= p.n) return;
  uint plane = i / plane_outputs();
  ivec3 start = window_start(i % plane_outputs());
  uint plane_base = plane * plane_elements();
  float best = uintBitsToFloat(0xff800000u), sum = 0.0;
  int best_at = -1;
  uint inside = 0u, padded = 0u;
  uvec3 k = uvec3(0u);
  for (uint t = 0u; t < window_taps(); ++t, next_tap(k)) {
    uint offset;
    bool in_padding;
    bool in_x = window_tap(start, k, offset, in_padding);
    if (in_padding) ++padded;
    if (!in_x) continue;
    ++inside;
    uint at = plane_base + offset;
    float v = LOAD(x, at);
    sum += v;
    // The first NaN or the first occurrence of the max wins.
    if (isnan(v) ? !isnan(best) : v > best) {
      best = v;
      best_at = int(at);
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
