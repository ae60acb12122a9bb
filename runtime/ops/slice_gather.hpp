// Slice and Gather: what their shape functions and kernels share.
#pragma once

#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

// Where Slice reads along one data axis: element `start`, then every
// `step`-th, `count` elements, after ONNX's clamping of starts and ends.
struct SliceAxis {
  int64_t start = 0;
  int64_t step = 1;
  int64_t count = 0;
};

// One SliceAxis per data axis (axes not listed keep all their elements);
// `axes` and `steps` may be null for the defaults (0, 1, ... and all 1).
Result<std::vector<SliceAxis>> resolve_slice(const Shape& data, const Tensor& starts, const Tensor& ends,
                                             const Tensor* axes, const Tensor* steps);

// Gather's indices (i32 or i64) as int64 in [0, dim): negative ones count
// from the end; an error names the first out of range.
Result<std::vector<int64_t>> gather_indices(const Tensor& indices, int64_t dim);

}  // namespace mote
