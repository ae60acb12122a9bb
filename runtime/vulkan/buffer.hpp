// One VkBuffer with its own memory. Mote makes few, large buffers (the
// intermediate arena, the weights, staging) and sub-allocates offsets, so a
// dedicated allocation per buffer is the simple and sufficient scheme.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/vulkan/device.hpp"

namespace mote::vk {

enum class MemoryKind {
  kDevice,   // device-local; mapped too when the device has unified memory
  kStaging,  // host-visible, for uploads and read-back
};

class Buffer {
 public:
  Buffer() = default;
  static Result<Buffer> create(Device& device, uint64_t bytes, MemoryKind kind, const char* what);
  // A buffer over the caller's own memory (VK_EXT_external_memory_host):
  // `data` aligned to features().host_import_alignment and `bytes` a
  // multiple of it. The memory must stay valid while the buffer lives; the
  // buffer neither copies nor frees it. kInvalidArgument for misaligned
  // memory and memory the driver refuses (read-only or file-backed pages);
  // kUnsupported, saying why, where the device cannot import at all (no
  // extension) or offers no host-coherent memory type for the pointer.
  static Result<Buffer> import_host(Device& device, void* data, uint64_t bytes, const std::string& what);
  ~Buffer();
  Buffer(Buffer&& other) noexcept { *this = std::move(other); }
  Buffer& operator=(Buffer&& other) noexcept;

  VkBuffer handle() const { return buffer_; }
  uint64_t size() const { return size_; }
  // Host pointer when the memory is host-visible and mapped, else nullptr.
  uint8_t* mapped() const { return mapped_; }
  // Host writes must be flushed / reads invalidated (non-coherent memory).
  bool coherent() const { return coherent_; }

 private:
  Device* device_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  uint64_t size_ = 0;
  uint8_t* mapped_ = nullptr;
  bool coherent_ = true;
};

}  // namespace mote::vk
