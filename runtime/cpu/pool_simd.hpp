// SIMD passes of the pooling kernels (Highway dynamic dispatch). A window is
// separable: each output row first combines the input rows its windows span
// element-wise into one padded scratch row, then every output takes its taps
// from that row, strides 1 and 2 vectorised (the 3x3 / 2x2, stride 1 / 2
// layers of CNNs), any kernel size and dilation. Max propagates NaN, like
// ReduceMax. One call runs a range of output rows, so that the per-row work
// (finding the rows, two passes) is inlined rather than dispatched per row:
// SqueezeNet's 13-wide rows spent 40 % of their time around the passes.
#pragma once

#include <cstdint>

namespace mote::cpu::simd {

// Windows over NCDHW planes, in the 3-D form of pool_geometry (as_3d).
struct PoolRows {
  int64_t in[3], out[3], kernel[3], stride[3], dilation[3], pad_begin[3];
  // AveragePool: per dim, per output position, how many taps count towards
  // the average (the divisor is their product); unused by max.
  const int64_t* counts[3] = {nullptr, nullptr, nullptr};
};

// Output rows [begin, end) of the planes at `in`: row t is (plane, od, oh)
// with t = (plane * out_d + od) * out_h + oh, written at out + t * out_w.
// Max or average of f32.
void pool_rows(const PoolRows& p, bool is_max, const float* in, float* out, int64_t begin, int64_t end);

// Max of quantised tensors (their order is their real values' order, and
// MaxPool keeps the input's scale and zero point). Padding and any window
// with no tap in the input give the type's lowest value.
void max_pool_rows(const PoolRows& p, const uint8_t* in, uint8_t* out, int64_t begin, int64_t end);
void max_pool_rows(const PoolRows& p, const int8_t* in, int8_t* out, int64_t begin, int64_t end);

}  // namespace mote::cpu::simd
