// What the TopK shape function and kernels share: reading K and the order
// that decides which elements come first.
#pragma once

#include <cmath>
#include <type_traits>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

// K from its 1-element i64 (or i32) input, checked against the size of the
// axis it selects from. InvalidArgument when missing, malformed or out of range.
Result<int64_t> topk_k(const Tensor* k, int64_t axis_size);

// The total order TopK sorts by: NaN is above every number (as numpy sorts),
// so it comes first with largest=1 and last with largest=0.
template <class T>
bool topk_greater(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return !std::isnan(b);
    if (std::isnan(b)) return false;
  }
  return a > b;
}

// Whether element (a, index ia) comes before (b, ib) in TopK's output: by
// value, then the lower index first (ONNX's tie rule).
template <class T>
bool topk_before(T a, int64_t ia, T b, int64_t ib, bool largest) {
  if (largest ? topk_greater(a, b) : topk_greater(b, a)) return true;
  if (largest ? topk_greater(b, a) : topk_greater(a, b)) return false;
  return ia < ib;
}

}  // namespace mote
