// Transpose's permutation, shared by its shape function and kernels.
#pragma once

#include <vector>

#include "runtime/core/attrs.hpp"
#include "mote/status.hpp"

namespace mote {

// Output axis i takes input axis perm[i]: the 'perm' attribute, or the axes
// reversed when it is empty (the ONNX default).
Result<std::vector<int>> transpose_perm(const fb::OpT& op, int rank);

}  // namespace mote
