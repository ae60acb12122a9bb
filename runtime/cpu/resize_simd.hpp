// SIMD loops of linear Resize, dispatched at run time to the machine's best
// instruction set (Highway dynamic dispatch).
#pragma once

#include <cstdint>

namespace mote::cpu::simd {

// out[i] = a[i] + w * (b[i] - a[i]) for i < n: interpolation between two
// rows, for an axis that is not the innermost.
void lerp_rows(const float* a, const float* b, float w, float* out, int64_t n);

// out[j] = row[lower[j]] + w[j] * (row[upper[j]] - row[lower[j]]) for j < n:
// interpolation along the innermost axis.
void lerp_gather(const float* row, const int32_t* lower, const int32_t* upper, const float* w, float* out, int64_t n);

}  // namespace mote::cpu::simd
