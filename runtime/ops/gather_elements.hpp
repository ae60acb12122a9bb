// GatherElements and ScatterElements: indexing along one axis element by
// element, `indices` having the rank of `data`. Shared by the shape
// functions and the kernels.
#pragma once

#include <cstdint>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

// Index element `i` of `indices` (i32 or i64), made non-negative for an axis
// of `dim`; an error naming the element when it is outside [-dim, dim).
Result<int64_t> element_index(const Tensor& indices, int64_t i, int64_t dim);

}  // namespace mote
