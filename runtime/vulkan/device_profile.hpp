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

// A GEMM tile as MOTE_VK_GEMM_TILE, SessionOptions::gpu_gemm_tile and the
// tuning file write it: the register core's "LXxTMxTNxBK" (e.g. 128x16x4x16),
// checked against the shader's constraints and the device's limits, or
// "shared" / "shared:N" (the shared-memory core, tiles for at least N
// workgroups; plain "shared" keeps `row`'s number if `row` is a shared-core
// tile). The error names the value and the broken limit.
Result<GemmTileLimits> parse_gemm_tile(const std::string& value, const GemmTileLimits& row,
                                       const DeviceFeatures& features);
// The inverse: "64x32x4x32" or "shared:512".
std::string format_gemm_tile(const GemmTileLimits& t);

// "register core, lx 64, tm 32, tn 4, bk 32" or "shared-memory core, tiles
// for at least 512 workgroups".
std::string describe(const GemmTileLimits& t);

}  // namespace mote::vk
