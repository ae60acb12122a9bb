// Index arithmetic of the reference data-movement kernels: they visit every
// output element, compute which input element it comes from, and copy it by
// size. Slow and plain on purpose.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "mote/tensor.hpp"

namespace mote::reference {

// The multi-index of row-major position `linear` in `shape`.
inline std::vector<int64_t> unravel_index(int64_t linear, const Shape& shape) {
  std::vector<int64_t> index(shape.size(), 0);
  for (size_t k = shape.size(); k-- > 0;) {
    index[k] = linear % shape[k];
    linear /= shape[k];
  }
  return index;
}

// The row-major position of `index` in `shape`.
inline int64_t ravel_index(const std::vector<int64_t>& index, const Shape& shape) {
  int64_t linear = 0;
  for (size_t k = 0; k < shape.size(); ++k) linear = linear * shape[k] + index[k];
  return linear;
}

// out element `dst_at` = in element `src_at`, whatever the dtype.
inline void copy_element_at(const Tensor& in, int64_t src_at, Tensor& out, int64_t dst_at) {
  const size_t size = dtype_size(in.dtype());
  std::memcpy(static_cast<char*>(out.raw()) + dst_at * static_cast<int64_t>(size),
              static_cast<const char*>(in.raw()) + src_at * static_cast<int64_t>(size), size);
}

}  // namespace mote::reference
