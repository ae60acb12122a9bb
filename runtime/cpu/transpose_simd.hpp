// The SIMD core of 2-D transposes of 4-byte elements (copy_strided's tiles,
// and through it the Transpose op and the NCHW results of convolutions that
// computed [pixels, channels]). Dispatches at run time to the machine's best
// instruction set.
#pragma once

#include <cstdint>

namespace mote::cpu::simd {

// dst[c * dst_stride + r] = src[r * src_stride + c] for r < rows, c < cols,
// elements of 4 bytes (floats or 32-bit integers, moved bit for bit). The
// two regions must not overlap.
void transpose_4byte(const void* src, int64_t src_stride, int64_t rows, int64_t cols, void* dst, int64_t dst_stride);

}  // namespace mote::cpu::simd
