// Known driver bugs and their workarounds, in one table (quirks.cpp).
#pragma once

#include <string>
#include <vector>

#include "runtime/vulkan/device.hpp"

namespace mote::vk {

// Applies every quirk matching `info` to `features`; returns one line per
// quirk applied ("<driver>: <bug> -> <workaround>").
std::vector<std::string> apply_quirks(const DeviceInfo& info, DeviceFeatures& features);

}  // namespace mote::vk
