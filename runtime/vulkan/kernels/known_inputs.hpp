// Inputs a Vulkan kernel must read on the host at plan time (Slice's starts,
// Pad's pads, Resize's scales): present ones must have host data.
#pragma once

#include <initializer_list>

#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {

// Input i, or nullptr when omitted (or empty, as exporters write omitted).
inline const Tensor* optional_known(const PlanContext& ctx, size_t i) {
  return ctx.has_input(i) && ctx.in(i).numel() > 0 ? &ctx.in(i) : nullptr;
}

// kUnsupported unless every present input among `indices` is known now.
inline Status require_known(const PlanContext& ctx, std::initializer_list<size_t> indices) {
  for (size_t i : indices) {
    if (ctx.has_input(i) && !ctx.in(i).raw() && ctx.in(i).numel() > 0) {
      return ctx.unsupported("input " + std::to_string(i) + " is computed at run time");
    }
  }
  return {};
}

}  // namespace mote::vk
