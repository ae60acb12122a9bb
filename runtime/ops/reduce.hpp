// What the Reduce*/ArgMax/ArgMin shape functions and kernels share: which axes
// an op reduces and what shape that leaves.
#pragma once

#include <cmath>
#include <type_traits>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"
#include "runtime/core/attrs.hpp"

namespace mote {

// Per axis of an input of rank `rank`, whether a Reduce* op reduces it. `axes`
// is the op's optional axes input (nullptr when omitted); omitted or empty
// axes reduce everything, or nothing when noop_with_empty_axes is set.
// Errors (out-of-range or repeated axes, bad axes dtype) are InvalidArgument.
Result<std::vector<bool>> reduce_axes_mask(const fb::ReduceAttrsT& attrs, const Tensor* axes, int rank);

// `shape` with reduced axes set to 1 (keepdims) or removed.
Shape reduced_shape(const Shape& shape, const std::vector<bool>& reduced, bool keepdims);

// Dtypes of Reduce* inputs: f32 for all; i32 and i64 for Sum, Max, Min and
// Prod; bool for Max and Min (any / all, as ONNX opset 20).
bool reduce_supports_dtype(fb::OpType type, DType dtype);

// The reduced-axis mask of ArgMax/ArgMin's single axis.
inline std::vector<bool> single_axis_mask(int axis, int rank) {
  std::vector<bool> mask(static_cast<size_t>(rank), false);
  mask[static_cast<size_t>(axis)] = true;
  return mask;
}

// ArgMax/ArgMin's order: whether `v` replaces the current `best`. Ties keep
// the first index unless select_last_index (`last`); a NaN beats every number,
// as in numpy's argmax/argmin.
template <class T>
bool arg_beats(T v, T best, bool is_max, bool last) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) return last || !std::isnan(best);
    if (std::isnan(best)) return false;
  }
  if (v == best) return last;
  return is_max ? v > best : v < best;
}

}  // namespace mote
