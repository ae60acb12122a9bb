// @mote bindings=3 push=100
// ConvGradWeight: dW[m, c, k] = the sum over images and output positions of
// X at the tap k of that position times dY[n, m, position], for 1 to 3
// spatial dims (the host pads 1-D and 2-D to 3-D with unit dims). Weights are
// few and the sum is long (N * output pixels), so one workgroup owns one
// weight element: its invocations stride over the sum and fold their partial
// sums in shared memory, in a fixed order, so results are deterministic.
// PER_THREAD: one invocation per weight element runs the whole sum, for many
// weights with short sums (no barriers; the host picks, as for Reduce*).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "workgroup_reduce.glsl"

layout(constant_id = 3) const bool PER_THREAD = false;
const uint RUN = 64u;  // kConvGradRun on the host
TENSOR_RO(0, x)
TENSOR_RO(1, dy)
TENSOR_WO(2, dw)
layout(push_constant) uniform Push {
  uint n_weights;    // elements of dW
  uint batch;
  uint out_pixels;
  uint in_channels;  // of X (all groups)
  uint out_channels;
  uint in_per_group;
  uint out_per_group;
  uint in_size[3];
  uint out_size[3];
  uint kernel[3];
  int stride[3];
  int dilation[3];
  int pad_begin[3];
} p;

void main() {
  uint w = PER_THREAD ? linear_id() : wg_row();
  if (w >= p.n_weights) return;  // workgroup-wide unless PER_THREAD, which has no barrier
  uint taps = p.kernel[0] * p.kernel[1] * p.kernel[2];
  uint tap = w % taps, c = w / taps % p.in_per_group, m = w / taps / p.in_per_group;
  ivec3 k_at = ivec3(tap / (p.kernel[1] * p.kernel[2]), tap / p.kernel[2] % p.kernel[1], tap % p.kernel[2]);
  ivec3 stride = ivec3(p.stride[0], p.stride[1], p.stride[2]);
  // Where output position 0 reads X for this tap.
  ivec3 offset = k_at * ivec3(p.dilation[0], p.dilation[1], p.dilation[2]) -
                 ivec3(p.pad_begin[0], p.pad_begin[1], p.pad_begin[2]);
  ivec3 size = ivec3(p.in_size[0], p.in_size[1], p.in_size[2]);
  ivec3 out_size = ivec3(p.out_size[0], p.out_size[1], p.out_size[2]);
  // The output positions whose tap lands inside X, per dim [lo, hi): then
  // the loops below need no bounds checks and no divisions per element.
  ivec3 lo = max((max(-offset, ivec3(0)) + stride - 1) / stride, ivec3(0));
  ivec3 last = size - 1 - offset;  // the largest o * stride still inside
  ivec3 hi = min(mix(last / stride + 1, ivec3(0), lessThan(last, ivec3(0))), out_size);
  ivec3 span = max(hi - lo, ivec3(0));
  uint in_pixels = uint(size.x * size.y * size.z);
  uint channel = m / p.out_per_group * p.in_per_group + c;  // X's channel for this group

  // Work items are runs of up to RUN output positions along the width, one
  // row (n, od, oh) after another; the invocations share them out. Runs keep
  // the divisions per element few, and the loops short when a row is long.
  uint runs_per_row = (uint(span.z) + RUN - 1u) / RUN;
  uint items = uint(span.x * span.y) * p.batch * runs_per_row;
  uint first = PER_THREAD ? 0u : gl_LocalInvocationID.x;
  uint step = PER_THREAD ? 1u : gl_WorkGroupSize.x;
  float acc = 0.0;
  for (uint item = first; item < items; item += step) {
    uint r = item / runs_per_row;
    int run_start = int(item % runs_per_row * RUN);
    int oh = lo.y + int(r % uint(span.y));
    int od = lo.x + int(r / uint(span.y) % uint(span.x));
    uint n = r / uint(span.x * span.y);
    ivec3 o0 = ivec3(od, oh, lo.z + run_start);
    ivec3 pos = o0 * stride + offset;
    uint xi = (n * p.in_channels + channel) * in_pixels + uint((pos.x * size.y + pos.y) * size.z + pos.z);
    uint yi = (n * p.out_channels + m) * p.out_pixels + uint((od * out_size.y + oh) * out_size.z + o0.z);
    int run = min(int(RUN), span.z - run_start);
    for (int k = 0; k < run; ++k) {
      acc = fma(LOAD(x, xi + uint(k * stride.z)), LOAD(dy, yi + uint(k)), acc);
    }
  }
  if (PER_THREAD) {
    STORE(dw, w, acc);
    return;
  }
  float total = wg_reduce(RED_SUM, acc);
  if (gl_LocalInvocationID.x == 0u) STORE(dw, w, total);
}
