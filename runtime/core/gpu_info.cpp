// mote/gpu.hpp: thin wrappers over the Vulkan device layer, compiled to
// "unavailable" answers when Mote is built without Vulkan.
#include "mote/gpu.hpp"

#if MOTE_HAS_VULKAN
#include "runtime/vulkan/device.hpp"
#include "runtime/vulkan/pipeline_cache_file.hpp"
#include "runtime/vulkan/pipelines.hpp"
#endif

namespace mote {

Result<std::vector<std::string>> describe_gpu() {
#if MOTE_HAS_VULKAN
  return vk::describe_devices();
#else
  return unsupported("Vulkan unavailable: Mote was built with MOTE_VULKAN=OFF");
#endif
}

std::string default_gpu_cache_dir() {
#if MOTE_HAS_VULKAN
  return vk::pipeline_cache_dir("");
#else
  return {};  // no GPU caches without Vulkan
#endif
}

void reset_gpu_pipelines() {
#if MOTE_HAS_VULKAN
  auto device = vk::Device::get();
  if (device.ok()) device.value()->pipelines().reset();
#endif
}

}  // namespace mote
