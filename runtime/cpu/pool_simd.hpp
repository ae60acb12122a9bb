// SIMD passes of the pooling kernels (Highway dynamic dispatch). A window is
// separable: first the rows it spans are combined element-wise into one row
// (combine_rows), then each output takes its taps from that row (window_row).
// Max propagates NaN, like ReduceMax.
#pragma once

#include <cstdint>

namespace mote::cpu::simd {

// out[i] = max or sum over r < count of rows[r][i], for i < n. With no rows,
// out is the identity: -inf for max, 0 for sum.
void combine_rows(bool is_max, const float* const* rows, int64_t count, int64_t n, float* out);

// out[x] = max or sum over k < kernel of in[x * stride + k * dilation], for
// x < out_n; sums are then multiplied by scale[x] (the averaging divisor).
// Strides 1 and 2 are vectorised. `in` must be readable up to element
// (out_n - 1) * stride + (kernel - 1) * dilation + stride, and
// window_row_slack() elements beyond.
// The elements window_row may read past the last tap: a vector's worth of
// outputs at stride 2, for the instruction set this machine runs.
int64_t window_row_slack();

void window_row(bool is_max, const float* in, int64_t out_n, int64_t kernel, int64_t stride, int64_t dilation,
                const float* scale, float* out);

}  // namespace mote::cpu::simd
