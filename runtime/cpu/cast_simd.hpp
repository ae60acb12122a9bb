// Conversion loops of the Cast kernel. Each lookup picks the best instruction
// set of the machine at run time (Highway dynamic dispatch).
#pragma once

#include <cstdint>

#include "mote/tensor.hpp"

namespace mote::cpu {

// out[i] = in[i] converted from `from` to `to` (runtime/ops/cast.hpp's rules)
// for i < n.
using CastRowFn = void (*)(const void* in, void* out, int64_t n);

// nullptr for an unknown dtype. f32 <-> f16, f32 <-> i32 and bool <-> f32 use
// Highway vectors; the rest are loops the compiler vectorises.
CastRowFn cast_row_fn(DType from, DType to);

}  // namespace mote::cpu
