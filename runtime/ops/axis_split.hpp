// Views a tensor as [outer, axis, inner] around one axis: the layout every
// single-axis op (Softmax, ArgMax, TopK, CumSum, normalisations) iterates in.
// Element (o, k, i) lives at (o * axis + k) * inner + i.
#pragma once

#include <cstdint>

#include "mote/tensor.hpp"

namespace mote {

struct AxisSplit {
  int64_t outer = 1;
  int64_t axis = 1;
  int64_t inner = 1;
};

// Product of shape[begin, end).
inline int64_t dims_product(const Shape& shape, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end && i < shape.size(); ++i) n *= shape[i];
  return n;
}

// `axis` must already be normalised into [0, rank).
inline AxisSplit split_at_axis(const Shape& shape, int axis) {
  size_t a = static_cast<size_t>(axis);
  return {dims_product(shape, 0, a), dims_product(shape, a, a + 1), dims_product(shape, a + 1, shape.size())};
}

}  // namespace mote
