// SIMD exponentials for the Softmax and LogSoftmax kernels (Highway dynamic
// dispatch, like row_simd.hpp).
#pragma once

#include <cstdint>

namespace mote::cpu::simd {

// y[i] = exp(x[i] - shift) and returns the sum of those values, accumulated
// in float per block and in double across blocks. y may be null to get only
// the sum (LogSoftmax), or alias x.
float exp_shifted_sum(const float* x, int64_t n, float shift, float* y);

// The strided form, one row of a softmax over a non-innermost axis:
// e = exp(x[i] - shift[i]); sum[i] += e; y[i] = e when y is not null.
void exp_shifted_accumulate(const float* x, const float* shift, int64_t n, float* y, float* sum);

// LogSoftmax's last pass: y[i] = (x[i] - max) - log_sum. Subtracting the two
// separately keeps the precision that x[i] - (max + log_sum) loses when max
// is large. y may alias x.
void log_softmax_row(const float* x, int64_t n, float max, float log_sum, float* y);

// The strided form, with one max and log_sum per column.
void log_softmax_columns(const float* x, const float* max, const float* log_sum, int64_t n, float* y);

}  // namespace mote::cpu::simd
