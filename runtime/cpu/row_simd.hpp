// SIMD loops over contiguous float rows, shared by the reduction, softmax,
// normalisation and pooling kernels. Each call dispatches at run time to the
// best instruction set of the machine (Highway dynamic dispatch); the library
// itself is built without -march flags.
#pragma once

#include <cstdint>

namespace mote::cpu::simd {

// How a reduction combines elements. kSumSquares adds x*x. Max and Min
// propagate NaN (as numpy does) rather than following the instruction set's
// NaN rules, so results do not depend on the machine.
enum class RowOp : int { kSum, kSumSquares, kMax, kMin, kProd };

// The value a reduction over no elements gives: 0, 0, -inf, +inf, 1.
float row_op_identity(RowOp op);

// Reduces x[0, n). Sums use several vector accumulators per block of a few
// thousand elements and add block results in double, so the error does not
// grow with n as a single running float sum's would.
float reduce_row(RowOp op, const float* x, int64_t n);

// acc[i] = acc[i] (op) row[i] for i < n: how a reduction over a strided axis
// folds in one contiguous row at a time.
void accumulate_row(RowOp op, float* acc, const float* row, int64_t n);

// Sum of (x[i] - mean)^2: the second pass of a two-pass variance.
float sum_squared_deviation(const float* x, int64_t n, float mean);

// y[i] = x[i] * a + b. y may alias x.
void scale_shift_row(const float* x, int64_t n, float a, float b, float* y);

// y[i] = (x[i] - mean) * inv_std * scale[i] + bias[i]; bias may be null.
void normalize_row(const float* x, int64_t n, float mean, float inv_std, const float* scale, const float* bias,
                   float* y);

// out[j] = sum over i < rows of x[i * width + j], for j < width: a
// reduction over the pixels of a channel-blocked tensor (width = its
// block). Accumulated in double.
void column_sums(const float* x, int64_t rows, int64_t width, float* out);

// y[i] = x[i] * s[i]. y may alias x.
void multiply_row(const float* x, const float* s, int64_t n, float* y);

// dst[i] = src[2 * i] for i < n: the stride-2 gather of im2col.
void copy_every_second(const float* src, int64_t n, float* dst);

// dst[r * dst_stride + i] = src[r * src_stride + 2 * i] + add (modulo 256)
// for i < n, r < rows: the int8 convolution's stride-2 phases
// (qconv_patches.cpp), a phase per call (a call per row of 7 cost more than
// the rows' bytes).
void copy_every_second_byte(const uint8_t* src, int64_t src_stride, int64_t n, int64_t rows, uint8_t add,
                            uint8_t* dst, int64_t dst_stride);

// dst[i] = src[i] + add (modulo 256) for i < n: int8 bytes read as uint8
// (add 128) by the int8 convolution's shifted planes (qconv_patches.cpp).
// src and dst must not overlap.
void add_to_bytes(const uint8_t* src, int64_t n, uint8_t add, uint8_t* dst);

// ArgMax/ArgMin rules: the index of the largest (is_max) or smallest element
// of x[0, n), n >= 1; ties go to the first index, or the last when `last`; a
// NaN counts as more extreme than any number (numpy's argmax/argmin).
int64_t arg_extreme_row(const float* x, int64_t n, bool is_max, bool last);

// The strided form: for i < n, when row[i] beats best[i] under the rules
// above, best[i] = row[i] and index[i] = row_index.
void arg_extreme_accumulate(float* best, int32_t* index, const float* row, int64_t n, int32_t row_index, bool is_max,
                            bool last);

}  // namespace mote::cpu::simd
