// Unique's grouping, shared by its shape function (which needs the number of
// distinct slices) and its reference kernel.
#pragma once

#include <cstdint>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"
#include "runtime/core/attrs.hpp"

namespace mote {

struct UniqueGroups {
  int axis = 0;                // the slicing axis of the (flattened, without has_axis) input
  Shape shape;                 // the input's shape as sliced ([numel] when flattened)
  std::vector<int64_t> first;  // per distinct slice, in output order: its first index along the axis
  std::vector<int64_t> inverse;  // per input slice: its distinct slice's output index
  std::vector<int64_t> counts;   // per distinct slice: how many input slices equal it
};

Result<UniqueGroups> unique_groups(const Tensor& x, const fb::UniqueAttrsT& attrs);

}  // namespace mote
