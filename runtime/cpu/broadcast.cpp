#include "runtime/cpu/broadcast.hpp"

#include <algorithm>

#include "runtime/core/shape_util.hpp"

namespace mote::cpu {

BroadcastPlan plan_broadcast(const Shape& out, const std::vector<Shape>& inputs) {
  BroadcastPlan plan;
  plan.num_inputs = static_cast<int>(std::min<size_t>(inputs.size(), BroadcastPlan::kMaxInputs));
  plan.numel = shape_numel(out);
  std::vector<std::vector<int64_t>> full(static_cast<size_t>(plan.num_inputs));
  for (int k = 0; k < plan.num_inputs; ++k) full[k] = broadcast_strides(inputs[k], out);

  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;  // a single step: no input moves
    // Merges into the previous (outer) dimension when, for every input, one
    // step along it equals a full walk of this one.
    bool merges = !plan.dims.empty();
    for (int k = 0; k < plan.num_inputs && merges; ++k) {
      merges = plan.strides[k].back() == full[k][d] * out[d];
    }
    if (merges) {
      plan.dims.back() *= out[d];
      for (int k = 0; k < plan.num_inputs; ++k) plan.strides[k].back() = full[k][d];
    } else {
      plan.dims.push_back(out[d]);
      for (int k = 0; k < plan.num_inputs; ++k) plan.strides[k].push_back(full[k][d]);
    }
  }
  if (plan.dims.empty()) {  // a scalar output, or all ones
    plan.dims.push_back(1);
    for (int k = 0; k < plan.num_inputs; ++k) plan.strides[k].push_back(0);
  }
  return plan;
}

}  // namespace mote::cpu
