// How MatMul's operands line up (numpy matmul semantics), shared by the shape
// function and the kernels: a 1-D A is a row vector and a 1-D B a column
// vector whose unit dimension is dropped from the output; the dimensions
// before the last two are batch dimensions, broadcast against each other.
#pragma once

#include <cstdint>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

struct MatMulShape {
  int64_t m = 0, k = 0, n = 0;
  Shape batch;        // broadcast batch dimensions of the output
  Shape a_batch;      // A's own batch dimensions (maybe fewer, maybe 1s)
  Shape b_batch;
  Shape output;       // batch + [m unless A is 1-D] + [n unless B is 1-D]
  int64_t batch_count() const;
};

// Errors (invalid_model) say which dimensions disagree.
Result<MatMulShape> resolve_matmul(const Shape& a, const Shape& b);

}  // namespace mote
