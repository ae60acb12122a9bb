#include "runtime/vulkan/vk_kernel.hpp"

#include <algorithm>

#include "runtime/core/registry.hpp"

namespace mote::vk {

std::array<uint32_t, 3> groups_1d(int64_t count, uint32_t local, const DeviceFeatures& features) {
  uint64_t groups = std::max<uint64_t>(1, (static_cast<uint64_t>(std::max<int64_t>(count, 0)) + local - 1) / local);
  uint64_t x = std::min<uint64_t>(groups, features.max_group_count[0]);
  uint64_t y = (groups + x - 1) / x;
  return {static_cast<uint32_t>(x), static_cast<uint32_t>(y), 1};
}

std::array<uint32_t, 3> PlanContext::groups_1d(int64_t count, uint32_t local) const {
  return vk::groups_1d(count, local, features);
}

Status PlanContext::unsupported(const std::string& reason) const {
  return ::mote::unsupported(std::string(op_type_name(op.type)) + ": " + reason);
}

Status PlanContext::require_dtypes(std::initializer_list<DType> dtypes) const {
  auto ok = [&](DType d) { return std::find(dtypes.begin(), dtypes.end(), d) != dtypes.end(); };
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] && !ok(inputs[i]->dtype())) {
      return unsupported(std::string("input ") + std::to_string(i) + " is " + dtype_name(inputs[i]->dtype()) +
                         ", not a dtype the Vulkan kernel takes");
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i] && !ok(outputs[i]->dtype())) {
      return unsupported(std::string("output ") + std::to_string(i) + " is " + dtype_name(outputs[i]->dtype()));
    }
  }
  return {};
}

}  // namespace mote::vk
