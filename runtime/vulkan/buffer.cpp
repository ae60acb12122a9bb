#include "runtime/vulkan/buffer.hpp"

#include <string>
#include <utility>

#include "runtime/vulkan/faults.hpp"

namespace mote::vk {

Result<Buffer> Buffer::create(Device& device, uint64_t bytes, MemoryKind kind, const char* what) {
  Buffer b;
  b.device_ = &device;
  b.size_ = bytes < 4 ? 4 : (bytes + 3) / 4 * 4;
  VkBufferCreateInfo ci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  ci.size = b.size_;
  ci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  MOTE_VK_CHECK(vkCreateBuffer(device.handle(), &ci, nullptr, &b.buffer_), std::string("vkCreateBuffer (") + what + ")");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device.handle(), b.buffer_, &req);
  const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  int type = -1;
  if (kind == MemoryKind::kDevice) {
    bool unified = device.features().host_visible_device_local;
    type = unified ? device.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | visible, 0) : -1;
    if (type < 0) type = device.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
    if (type < 0) type = device.memory_type(req.memoryTypeBits, 0, 0);
  } else {
    type = device.memory_type(req.memoryTypeBits, visible, VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  }
  if (type < 0) return internal_error(std::string("no Vulkan memory type for ") + what);
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = static_cast<uint32_t>(type);
  MOTE_VK_CHECK(fault_fires(Fault::kOutOfDeviceMemory) ? VK_ERROR_OUT_OF_DEVICE_MEMORY
                                                       : vkAllocateMemory(device.handle(), &ai, nullptr, &b.memory_),
                "allocating " + std::to_string(req.size) + " bytes of device memory for " + what);
  MOTE_VK_CHECK(vkBindBufferMemory(device.handle(), b.buffer_, b.memory_, 0), "vkBindBufferMemory");
  VkMemoryPropertyFlags flags = device.memory_flags(type);
  bool host_visible = flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
  bool want_map = kind == MemoryKind::kStaging || device.features().host_visible_device_local;
  if (host_visible && want_map) {
    void* p = nullptr;
    MOTE_VK_CHECK(vkMapMemory(device.handle(), b.memory_, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory");
    b.mapped_ = static_cast<uint8_t*>(p);
    b.coherent_ = flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  }
  return b;
}

Result<Buffer> Buffer::import_host(Device& device, void* data, uint64_t bytes, const std::string& what) {
  const uint64_t alignment = device.features().host_import_alignment;
  if (!alignment) return unsupported("the Vulkan device cannot import host memory (no VK_EXT_external_memory_host)");
  if (reinterpret_cast<uintptr_t>(data) % alignment || bytes == 0 || bytes % alignment) {
    return invalid_argument(what + ": the caller's memory must start at a multiple of " + std::to_string(alignment) +
                            " bytes and span a multiple of it (" + std::to_string(bytes) + " bytes given)");
  }
  const auto handle = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  // A pointer the driver cannot import (read-only or file-backed pages,
  // another device's mapping) is the caller's to change, not a Mote bug.
  const auto refused = [&](const char* call, VkResult r) {
    return invalid_argument(what + ": the Vulkan driver cannot import this memory (" + call + ": " + result_name(r) +
                            "); pass ordinary writable memory from malloc, aligned_alloc or mmap");
  };
  VkMemoryHostPointerPropertiesEXT pointer{VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
  if (VkResult r = vkGetMemoryHostPointerPropertiesEXT(device.handle(), handle, data, &pointer); r != VK_SUCCESS) {
    return refused("vkGetMemoryHostPointerPropertiesEXT", r);
  }
  Buffer b;
  b.device_ = &device;
  b.size_ = bytes;
  VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  external.handleTypes = handle;
  VkBufferCreateInfo ci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  ci.pNext = &external;
  ci.size = bytes;
  ci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  MOTE_VK_CHECK(vkCreateBuffer(device.handle(), &ci, nullptr, &b.buffer_), "vkCreateBuffer (" + what + ")");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device.handle(), b.buffer_, &req);
  // The CPU writes inputs and reads outputs there with no flush or
  // invalidate: only a host-coherent type will do.
  const VkMemoryPropertyFlags coherent = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const int type = device.memory_type(req.memoryTypeBits & pointer.memoryTypeBits, coherent, 0);
  if (type < 0) return unsupported(what + ": the Vulkan device offers no host-coherent memory type for this pointer");
  if (req.size > bytes) {
    return invalid_argument(what + ": the Vulkan driver needs " + std::to_string(req.size) +
                            " bytes for a buffer of " + std::to_string(bytes) + "; pass memory that long");
  }
  VkImportMemoryHostPointerInfoEXT import{VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT};
  import.handleType = handle;
  import.pHostPointer = data;
  // Drivers that import host memory only as a buffer's dedicated allocation say so (probe_features).
  VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicated.buffer = b.buffer_;
  if (device.features().host_import_dedicated) import.pNext = &dedicated;
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.pNext = &import;
  ai.allocationSize = bytes;
  ai.memoryTypeIndex = static_cast<uint32_t>(type);
  if (VkResult r = vkAllocateMemory(device.handle(), &ai, nullptr, &b.memory_);
      r == VK_ERROR_INVALID_EXTERNAL_HANDLE) {
    return refused("vkAllocateMemory", r);
  } else {
    MOTE_VK_CHECK(r, "importing " + std::to_string(bytes) + " bytes of the caller's memory for " + what);
  }
  MOTE_VK_CHECK(vkBindBufferMemory(device.handle(), b.buffer_, b.memory_, 0), "vkBindBufferMemory (" + what + ")");
  b.mapped_ = static_cast<uint8_t*>(data);
  b.coherent_ = true;
  return b;
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    this->~Buffer();
    device_ = std::exchange(other.device_, nullptr);
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, nullptr);
    coherent_ = other.coherent_;
  }
  return *this;
}

Buffer::~Buffer() {
  if (!device_) return;
  if (buffer_) vkDestroyBuffer(device_->handle(), buffer_, nullptr);
  if (memory_) vkFreeMemory(device_->handle(), memory_, nullptr);
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  device_ = nullptr;
}

}  // namespace mote::vk
