// How MatMul's operands line up (numpy matmul semantics), shared by the shape
// function and the kernels: a 1-D A is a row vector and a 1-D B a column
// vector whose unit dimension is dropped from the output; the dimensions
// before the last two are batch dimensions, broadcast against each other.
#pragma once

#include <cstdint>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"
#include "runtime/core/shape_util.hpp"

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

// Calls fn(batch, a_matrix, b_matrix) for each output matrix in order: the
// indices of the matrices of A and B it multiplies (the batch dimensions
// broadcast).
template <class Fn>
void for_each_matmul_batch(const MatMulShape& s, Fn&& fn) {
  const std::vector<int64_t> a_strides = broadcast_strides(s.a_batch, s.batch);
  const std::vector<int64_t> b_strides = broadcast_strides(s.b_batch, s.batch);
  const std::vector<int64_t> out_strides = contiguous_strides(s.batch);
  for (int64_t batch = 0; batch < s.batch_count(); ++batch) {
    int64_t a_matrix = 0, b_matrix = 0;
    for (size_t d = 0; d < s.batch.size(); ++d) {
      const int64_t index = batch / out_strides[d] % s.batch[d];
      a_matrix += index * a_strides[d];
      b_matrix += index * b_strides[d];
    }
    fn(batch, a_matrix, b_matrix);
  }
}

}  // namespace mote
