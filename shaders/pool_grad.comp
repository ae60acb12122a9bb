// @mote bindings=3 push=88
// MaxPoolGrad and AveragePoolGrad over up to three spatial dims (the host
// pads 1-D and 2-D windows to 3-D with unit dims), with pool.comp's windows.
// One invocation per element of dX gathers from every window that covers it,
// rather than each window scattering with atomics: no float atomics needed,
// and the sum runs in the reference's order (windows in output order), so
// results are deterministic.
//   IS_MAX: a window passes its gradient to the tap MaxPool picked (the first
//     NaN, else the first maximum), recomputed here from X.
//   else: each window passes gradient / count to each of its taps in X, count
//     as AveragePool divides (COUNT_PAD: taps in the declared padding too).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(constant_id = 3) const bool IS_MAX = true;
layout(constant_id = 4) const bool COUNT_PAD = false;
TENSOR_RO(0, x)
TENSOR_RO(1, dy)
TENSOR_WO(2, dx)
layout(push_constant) uniform Push {
  uint n;  // elements of dX: planes * input spatial size
  uint in_size[3];
  uint out_size[3];
  uint kernel[3];
  uint stride[3];
  uint dilation[3];
  uint pad_begin[3];
  uint pad_end[3];
} p;

ivec3 iv(uint v[3]) { return ivec3(v[0], v[1], v[2]); }

// The flat index (within its plane) of the tap MaxPool picks in the window
// starting at `start`, or -1 when no tap lands in the input.
int max_tap(uint plane_base, ivec3 start) {
  ivec3 size = iv(p.in_size), dilation = iv(p.dilation);
  float best = uintBitsToFloat(0xff800000u);
  int best_at = -1;
  for (int kd = 0; kd < int(p.kernel[0]); ++kd) {
    for (int kh = 0; kh < int(p.kernel[1]); ++kh) {
      for (int kw = 0; kw < int(p.kernel[2]); ++kw) {
        ivec3 pos = start + ivec3(kd, kh, kw) * dilation;
        if (any(lessThan(pos, ivec3(0))) || any(greaterThanEqual(pos, size))) continue;
        int at = (pos.x * size.y + pos.y) * size.z + pos.z;
        float v = LOAD(x, plane_base + uint(at));
        if (isnan(v) ? !isnan(best) : v > best) {
          best = v;
          best_at = at;
        }
      }
    }
  }
  return best_at;
}

// How many taps of the window starting at `start` AveragePool divides by:
// the count factors over the dims, since a tap is inside when it is inside
// along every dim.
uint window_count(ivec3 start) {
  ivec3 lo = COUNT_PAD ? -iv(p.pad_begin) : ivec3(0);
  ivec3 hi = COUNT_PAD ? iv(p.in_size) + iv(p.pad_end) : iv(p.in_size);
  uint count = 1u;
  for (int d = 0; d < 3; ++d) {
    uint along = 0u;
    for (int k = 0; k < int(p.kernel[d]); ++k) {
      int pos = start[d] + k * int(p.dilation[d]);
      if (pos >= lo[d] && pos < hi[d]) ++along;
    }
    count *= along;
  }
  return count;
}

void main() {
  uint i = linear_id();
  if (i >= p.n) return;
  ivec3 size = iv(p.in_size), out_size = iv(p.out_size), stride = iv(p.stride), dilation = iv(p.dilation);
  ivec3 pad = iv(p.pad_begin), kernel = iv(p.kernel);
  uint plane_in = uint(size.x * size.y * size.z), plane_out = uint(out_size.x * out_size.y * out_size.z);
  uint plane = i / plane_in;
  int q = int(i % plane_in);
  ivec3 at = ivec3(q / (size.y * size.z), q / size.z % size.y, q % size.z);
  // Windows o that can cover `at`: o * stride - pad + k * dilation == at for
  // some 0 <= k < kernel, i.e. o in [ceil((at + pad - (kernel-1) * dilation) /
  // stride), floor((at + pad) / stride)], then the tap must hit `at` exactly.
  ivec3 reach = at + pad;
  ivec3 first_num = reach - (kernel - 1) * dilation;
  ivec3 lo = max((max(first_num, ivec3(0)) + stride - 1) / stride, ivec3(0));
  ivec3 hi = min(reach / stride, out_size - 1);
  float grad = 0.0;
  for (int od = lo.x; od <= hi.x; ++od) {
    for (int oh = lo.y; oh <= hi.y; ++oh) {
      for (int ow = lo.z; ow <= hi.z; ++ow) {
        ivec3 o = ivec3(od, oh, ow);
        ivec3 start = o * stride - pad;
        ivec3 offset = at - start;  // >= 0 by the range above
        if (any(notEqual(offset % dilation, ivec3(0)))) continue;
        uint oi = plane * plane_out + uint((od * out_size.y + oh) * out_size.z + ow);
        if (IS_MAX) {
          if (max_tap(plane * plane_in, start) == q) grad += LOAD(dy, oi);
        } else {
          grad += LOAD(dy, oi) / float(window_count(start));
        }
      }
    }
  }
  STORE(dx, i, grad);
}
