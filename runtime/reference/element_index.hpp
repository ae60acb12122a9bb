// Index arithmetic of the reference data-movement kernels: they visit every
// output element, compute which input element it comes from, and copy it by
// size. Slow and plain on purpose.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <vector>

#include "mote/tensor.hpp"

namespace mote::reference {

// Writes the multi-index of row-major position `linear` in `shape` into
// `index`. A loop over elements declares `index` once, outside: a vector
// made per element spent a quarter of a reference-heavy test's time in
// malloc and free (perf, GradRecurrent.UnrolledOpsComputeTheOpAndItsGradients),
// and more under ASan (21.0 -> 8.5 s for that test).
inline void unravel_index(int64_t linear, const Shape& shape, std::vector<int64_t>& index) {
  index.resize(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    index[k] = linear % shape[k];
    linear /= shape[k];
  }
}

// The row-major position of `index` in `shape`.
inline int64_t ravel_index(std::span<const int64_t> index, const Shape& shape) {
  int64_t linear = 0;
  for (size_t k = 0; k < shape.size(); ++k) linear = linear * shape[k] + index[k];
  return linear;
}
inline int64_t ravel_index(std::initializer_list<int64_t> index, const Shape& shape) {
  return ravel_index(std::span<const int64_t>(index.begin(), index.size()), shape);
}

// out element `dst_at` = in element `src_at`, whatever the dtype.
inline void copy_element_at(const Tensor& in, int64_t src_at, Tensor& out, int64_t dst_at) {
  const size_t size = dtype_size(in.dtype());
  std::memcpy(static_cast<char*>(out.raw()) + dst_at * static_cast<int64_t>(size),
              static_cast<const char*>(in.raw()) + src_at * static_cast<int64_t>(size), size);
}

}  // namespace mote::reference
