// The GPU (Vulkan) device as the C++ API exposes it: what it is, and the
// pipeline cache behind it. Sessions pick the device themselves; these calls
// are for tools, diagnostics and benchmarks.
#pragma once

#include <string>
#include <vector>

#include "mote/export.hpp"
#include "mote/status.hpp"

namespace mote {

// Lines describing the Vulkan device Mote uses (name, type, driver, the
// features kernels rely on, quirks applied), or an error saying in one line
// why no device is usable (no loader, no driver, MOTE_VK_DEVICE mismatch,
// built without Vulkan).
MOTE_API Result<std::vector<std::string>> describe_gpu();

// Drops every compiled pipeline and the in-memory pipeline cache so the next
// prepare compiles again (from the disk cache if one is there). For
// benchmarks measuring cold and warm prepare; a no-op without a device.
MOTE_API void reset_gpu_pipelines();

}  // namespace mote
