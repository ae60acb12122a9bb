// Transpose's permutation, shared by its shape function and kernels.
#pragma once

#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"
#include "runtime/core/attrs.hpp"

namespace mote {

// Output axis i takes input axis perm[i]: the 'perm' attribute, or the axes
// reversed when it is empty (the ONNX default).
Result<std::vector<int>> transpose_perm(const fb::OpT& op, int rank);

// Whether `perm` moves only axes of size 1 of an input of shape `in` (the
// others keep their order): the output's bytes are then the input's, as
// for a batch-first <-> sequence-first transpose with a batch of 1.
bool transpose_keeps_order(const std::vector<int>& perm, const Shape& in);

}  // namespace mote
