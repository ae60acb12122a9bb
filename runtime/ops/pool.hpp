// Window geometry of MaxPool and AveragePool over 1 to 3 spatial dims, shared
// by their shape function and kernels so that all agree on output sizes and
// padding.
#pragma once

#include <limits>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"
#include "runtime/core/attrs.hpp"

namespace mote {

// Per spatial dim (X is N x C x spatial...).
struct PoolGeometry {
  std::vector<int64_t> in, out, kernel, stride, dilation, pad_begin, pad_end;

  int spatial() const { return static_cast<int>(in.size()); }
  // The same windows over exactly three spatial dims: leading unit dims
  // (size 1, kernel 1, no padding) let kernels use one 3-D loop nest.
  PoolGeometry as_3d() const;
};

// Validates the attributes against X's shape and resolves defaults, auto_pad
// and ceil_mode (a last window must start inside the input or its left
// padding). InvalidArgument for a bad model, Unsupported for more than three
// spatial dims.
Result<PoolGeometry> pool_geometry(const fb::PoolAttrsT& attrs, const Shape& x);

// Where MaxPool's max starts, and what a window with no tap in the input
// gives: -inf, or an integer type's lowest value (MaxPool also runs on
// uint8 and int8).
template <class T>
constexpr T max_pool_identity() {
  if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
  return std::numeric_limits<T>::lowest();
}

}  // namespace mote
