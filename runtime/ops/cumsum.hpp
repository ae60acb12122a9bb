// What the CumSum shape function and kernels share: reading the axis input.
#pragma once

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

// The axis from CumSum's input 1 (a scalar or 1-element i32/i64 tensor),
// normalised into [0, rank). InvalidArgument when malformed or out of range.
Result<int> cumsum_axis(const Tensor& axis, int rank);

}  // namespace mote
