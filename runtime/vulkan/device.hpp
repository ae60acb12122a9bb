// The Vulkan device Mote runs on: one per process, created on first use.
//
// Selection prefers a discrete GPU, then an integrated one, then virtual and
// CPU-type devices (lavapipe). MOTE_VK_DEVICE=<index|name substring> picks one
// explicitly. Feature probing records what kernels may rely on; the quirk
// table (quirks.cpp) may switch features off for drivers with known bugs.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/vulkan/vk_common.hpp"

namespace mote::vk {

class PipelineSet;

// Which GEMM core the Gemm, MatMul and Conv shaders use on a device, and its
// largest tile (device_profile.cpp chooses per device; pick_gemm_tile per
// problem):
// - the register core (shaders/gemm_tile.glsl): a workgroup of `lx`
//   invocations, each up to `tm` rows by `tn` columns, the depth staged `bk`
//   at a time; made for lavapipe;
// - the shared-memory core (shaders/gemm_shared.glsl), for GPUs: the largest
//   of its tiles that still gives `min_workgroups` workgroups.
struct GemmTileLimits {
  bool shared_core = false;
  uint32_t lx = 64, tm = 32, tn = 4, bk = 32;
  uint32_t min_workgroups = 512;
};

struct DeviceFeatures {
  bool fp16_storage = false;       // storageBuffer16BitAccess
  bool shader_float16 = false;     // f16 arithmetic
  bool int8_storage = false;       // storageBuffer8BitAccess
  bool int8_dot_product = false;   // VK_KHR_shader_integer_dot_product
  bool int64 = false;              // shaderInt64
  uint32_t subgroup_size = 1;
  bool subgroup_arithmetic = false;  // subgroupAdd/Max in compute shaders
  bool subgroup_shuffle = false;     // subgroupShuffle in compute shaders
  bool cooperative_matrix = false;   // VK_KHR_cooperative_matrix present
  uint32_t max_shared_memory = 16384;
  uint32_t max_workgroup_invocations = 128;
  uint32_t max_workgroup_size[3] = {128, 128, 64};
  uint32_t max_group_count[3] = {65535, 65535, 65535};
  uint64_t storage_offset_alignment = 256;
  uint64_t max_storage_buffer_range = 1ull << 27;
  // Some memory type is both device-local and host-visible (unified memory:
  // Jetson, phones, lavapipe; ReBAR on desktops): tensors are mapped directly.
  bool host_visible_device_local = false;
  // VK_EXT_external_memory_host's minImportedHostPointerAlignment: the GPU
  // can read and write the caller's own memory (Session::import_input,
  // import_output) when it is aligned to this and a multiple of it in size;
  // 0 where the device lacks the extension (or MOTE_VK_DISABLE=import).
  uint64_t host_import_alignment = 0;
  // The driver imports host memory only as a buffer's dedicated allocation.
  bool host_import_dedicated = false;
  bool timestamps = false;
  float timestamp_period_ns = 1.0f;
  // Iterations after which the driver cuts a shader loop short (a quirk;
  // unlimited unless quirks.cpp says otherwise).
  uint32_t max_loop_iterations = 0xffffffffu;
  // packHalf2x16/unpackHalf2x16 compile correctly (Cast to and from f16);
  // a quirk turns it off.
  bool half_conversions = true;
  // The int8 ops (QLinearConv and the others, 8-bit MaxPool) run on the GPU.
  // Off on CPU-type devices (lavapipe), where the direct convolution shader
  // took 16.8 s for int8 ResNet-18 against 55 ms for Mote's CPU kernel on the
  // same 2 cores (2026-11-28), so an int8 model stays on the CPU whole
  // rather than crossing over op by op; MOTE_VK_FORCE_INT8=1 turns it on
  // there (the Vulkan tests).
  bool int8_shaders = true;
  // Not probed: the device profile's choice (device_profile.cpp).
  GemmTileLimits gemm_tile;
  // The register core hands out its rows by subgroup shuffles where the
  // profile asks for it and the device has them (shaders/gemm_tile.glsl).
  bool gemm_rows_by_shuffle = false;
  // Reductions whose innermost axis is reduced, over at most this many
  // elements per output, and normalised or softmax rows as short, fold each
  // in one invocation (PER_THREAD in shaders/reduce.glsl, normalize.glsl and
  // softmax.glsl) instead of a workgroup per output; 0: always a workgroup.
  // The device profile's choice.
  uint32_t reduce_rows_per_invocation = 0;
  // 3x3 stride-1 convolutions as Winograd (kernels/conv_winograd.cpp); off
  // with MOTE_VK_DISABLE=winograd, to compare or to test the implicit GEMM.
  bool winograd = true;
  // Most dispatches one submission (command buffer) may carry; 0 = no limit.
  // Set by a quirk (drivers that hang on one large submission) or by
  // MOTE_VK_MAX_DISPATCHES_PER_SUBMIT; placement then cuts a run of GPU ops
  // into several command buffers, submitted one after another.
  uint32_t max_dispatches_per_submit = 0;
};

struct DeviceInfo {
  std::string name;
  std::string driver;  // driver name and info, when the device reports them
  uint32_t driver_id = 0;  // VkDriverId on Vulkan 1.2 devices, 0 when unknown
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  uint32_t driver_version = 0;
  uint32_t api_version = 0;
  uint8_t pipeline_cache_uuid[VK_UUID_SIZE] = {};
  int index = 0;  // among the physical devices
};

// Tuning choices for the device (device_profile.cpp).
struct DeviceProfile {
  std::string row;  // the table row that matched, and the override if any
  GemmTileLimits gemm;
  bool gemm_rows_by_shuffle = false;   // see DeviceFeatures::gemm_rows_by_shuffle
  uint32_t reduce_rows_per_invocation = 0;  // see DeviceFeatures::reduce_rows_per_invocation
  bool gemm_from_environment = false;  // MOTE_VK_GEMM_TILE set the tile
};

const char* device_type_name(VkPhysicalDeviceType type);

// What device selection sees of one physical device.
struct DeviceCandidate {
  std::string name;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  bool has_compute_queue = false;
  uint32_t api_version = 0;
};

// Index of the device to use: `choice` (MOTE_VK_DEVICE; null or empty for
// automatic) is an index or a case-insensitive name substring. Error naming
// the candidates when nothing suitable exists.
Result<size_t> select_device(const std::vector<DeviceCandidate>& candidates, const char* choice);

// One line per physical device, for `mote-info --devices`; an error line
// when Vulkan is unavailable.
Result<std::vector<std::string>> describe_devices();

class Device {
 public:
  // The process-wide device. The error says in one line why Vulkan is
  // unavailable (no loader, no device, ...); callers fall back to the CPU.
  static Result<Device*> get();

  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceInfo& info() const { return info_; }
  const DeviceFeatures& features() const { return features_; }
  // Quirks applied to this device, one line each.
  const std::vector<std::string>& quirks() const { return quirks_; }
  const DeviceProfile& profile() const { return profile_; }
  VkDevice handle() const { return device_; }
  VkPhysicalDevice physical() const { return physical_; }
  uint32_t queue_family() const { return queue_family_; }
  PipelineSet& pipelines() { return *pipelines_; }

  // Memory type index with all `required` flags, preferring `preferred`;
  // -1 when none matches `type_bits`.
  int memory_type(uint32_t type_bits, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) const;
  VkMemoryPropertyFlags memory_flags(int type_index) const;

  // Submits command buffers and waits for them (the queue is shared by every
  // session, so submission is serialised).
  Status submit_and_wait(const VkCommandBuffer* buffers, uint32_t count);
  VkCommandPool command_pool() const { return command_pool_; }
  std::mutex& pool_mutex() { return pool_mutex_; }

  // Validation-layer messages of error severity seen so far (only counted
  // when MOTE_VK_VALIDATION=1 enabled the layer).
  uint64_t validation_errors() const { return validation_errors_.load(); }
  bool validation_enabled() const { return messenger_ != VK_NULL_HANDLE; }

 private:
  Device() = default;
  Status create();
  Status create_instance();
  Status pick_physical_device();
  void probe_features();
  Status limit_submissions_from_environment();
  void disable_features_from_environment();
  Status create_logical_device();
  static VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                               VkDebugUtilsMessageTypeFlagsEXT types,
                                                               const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                               void* user);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory_{};
  DeviceInfo info_;
  DeviceFeatures features_;
  std::vector<std::string> quirks_;
  DeviceProfile profile_;
  std::unique_ptr<PipelineSet> pipelines_;
  std::mutex queue_mutex_;
  std::mutex pool_mutex_;
  std::atomic<uint64_t> validation_errors_{0};
};

}  // namespace mote::vk
