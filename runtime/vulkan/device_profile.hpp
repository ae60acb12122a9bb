// Tuning choices per kind of device, in one table (device_profile.cpp): what
// Mote's kernels choose on a device, as opposed to what the device can do
// (DeviceFeatures, probed) and what its driver gets wrong (quirks.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "runtime/vulkan/device.hpp"

namespace mote::vk {

// The first row of the table matching the device, then MOTE_VK_GEMM_TILE
// if `gemm_override` is set: "LXxTMxTNxBK" (the register core, e.g.
// 128x16x4x16), "shared" or "shared:N" (the shared-memory core, tiles for at
// least N workgroups), checked against the shaders' constraints and the
// device's limits.
Result<DeviceProfile> choose_profile(const DeviceInfo& info, const DeviceFeatures& features,
                                     const char* gemm_override);

// "register core, lx 64, tm 32, tn 4, bk 32" or "shared-memory core, tiles
// for at least 512 workgroups".
std::string describe(const GemmTileLimits& t);

}  // namespace mote::vk
