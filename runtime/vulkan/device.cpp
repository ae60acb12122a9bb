#include "runtime/vulkan/device.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runtime/vulkan/device_profile.hpp"
#include "runtime/vulkan/faults.hpp"
#include "runtime/vulkan/pipelines.hpp"
#include "runtime/vulkan/quirks.hpp"

namespace mote::vk {

const char* device_type_name(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
  }
}

namespace {

int type_rank(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
  }
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

// Loads the Vulkan loader and lists physical devices; shared by get() and
// describe_devices().
Status load_loader() {
  static const VkResult result = volkInitialize();
  if (result != VK_SUCCESS) return unsupported("Vulkan unavailable: no Vulkan loader (libvulkan.so.1) found");
  return {};
}

}  // namespace

Result<size_t> select_device(const std::vector<DeviceCandidate>& candidates, const char* choice) {
  auto usable = [](const DeviceCandidate& c) { return c.has_compute_queue && c.api_version >= VK_API_VERSION_1_1; };
  std::string names;
  for (size_t i = 0; i < candidates.size(); ++i) {
    names += (i ? ", " : "") + std::to_string(i) + ": " + candidates[i].name;
  }
  if (choice && *choice) {
    std::string want = choice;
    bool numeric = std::all_of(want.begin(), want.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    for (size_t i = 0; i < candidates.size(); ++i) {
      bool match = numeric ? std::to_string(i) == want : lower(candidates[i].name).find(lower(want)) != std::string::npos;
      if (!match) continue;
      if (!usable(candidates[i])) {
        return unsupported("MOTE_VK_DEVICE=" + want + " selects '" + candidates[i].name +
                           "', which has no compute queue or Vulkan 1.1");
      }
      return i;
    }
    return not_found("MOTE_VK_DEVICE=" + want + " matches no Vulkan device (have " + (names.empty() ? "none" : names) + ")");
  }
  int best = -1;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!usable(candidates[i])) continue;
    if (best < 0 || type_rank(candidates[i].type) > type_rank(candidates[static_cast<size_t>(best)].type)) {
      best = static_cast<int>(i);
    }
  }
  if (best < 0) {
    return unsupported("Vulkan unavailable: no device with a compute queue and Vulkan 1.1" +
                       (names.empty() ? std::string() : " (have " + names + ")"));
  }
  return static_cast<size_t>(best);
}

Result<Device*> Device::get() {
  // Never destroyed: tearing Vulkan down at exit races other static
  // destructors and lets the loader unload the driver, whose leftover
  // allocations then show up as unattributable leaks. The pipeline cache is
  // saved after every prepare, so nothing is lost at exit.
  static std::mutex mutex;
  static Device* device = nullptr;
  static Status failure;
  static bool tried = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (!tried) {
    tried = true;
    std::unique_ptr<Device> d(new Device());
    failure = d->create();
    if (failure.ok()) device = d.release();
  }
  if (!device) return failure;
  if (device_lost()) {
    return Status(StatusCode::kGpuFault, "the Vulkan device was lost earlier in this process; it is not used again");
  }
  return device;
}

Status Device::create() {
  MOTE_RETURN_IF_ERROR(arm_faults_from_environment());
  MOTE_RETURN_IF_ERROR(load_loader());
  MOTE_RETURN_IF_ERROR(create_instance());
  MOTE_RETURN_IF_ERROR(pick_physical_device());
  probe_features();
  quirks_ = apply_quirks(info_, features_);
  disable_features_from_environment();
  MOTE_RETURN_IF_ERROR(limit_submissions_from_environment());
  MOTE_ASSIGN_OR_RETURN(profile_, choose_profile(info_, features_, std::getenv("MOTE_VK_GEMM_TILE")));
  features_.gemm_tile = profile_.gemm;
  features_.gemm_rows_by_shuffle = profile_.gemm_rows_by_shuffle && features_.subgroup_shuffle;
  features_.reduce_rows_per_invocation = profile_.reduce_rows_per_invocation;
  MOTE_RETURN_IF_ERROR(create_logical_device());
  pipelines_ = std::make_unique<PipelineSet>(*this);
  return {};
}

VKAPI_ATTR VkBool32 VKAPI_CALL Device::on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                             VkDebugUtilsMessageTypeFlagsEXT,
                                                             const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                             void* user) {
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
    static_cast<Device*>(user)->validation_errors_.fetch_add(1);
    std::fprintf(stderr, "mote: Vulkan validation error: %s\n", data->pMessage);
  } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    std::fprintf(stderr, "mote: Vulkan validation warning: %s\n", data->pMessage);
  }
  return VK_FALSE;
}

Status Device::create_instance() {
  uint32_t loader_version = VK_API_VERSION_1_0;
  if (vkEnumerateInstanceVersion) vkEnumerateInstanceVersion(&loader_version);
  if (loader_version < VK_API_VERSION_1_1) return unsupported("Vulkan unavailable: the loader only offers Vulkan 1.0");

  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  bool validation = env_flag("MOTE_VK_VALIDATION");
  if (validation) {
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> props(n);
    vkEnumerateInstanceLayerProperties(&n, props.data());
    bool found = std::any_of(props.begin(), props.end(), [](const VkLayerProperties& p) {
      return std::strcmp(p.layerName, "VK_LAYER_KHRONOS_validation") == 0;
    });
    if (found) {
      layers.push_back("VK_LAYER_KHRONOS_validation");
      extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    } else {
      std::fprintf(stderr, "mote: MOTE_VK_VALIDATION is set but VK_LAYER_KHRONOS_validation is not installed\n");
      validation = false;
    }
  }
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "mote";
  app.pEngineName = "mote";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pApplicationInfo = &app;
  ci.enabledLayerCount = static_cast<uint32_t>(layers.size());
  ci.ppEnabledLayerNames = layers.data();
  ci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  ci.ppEnabledExtensionNames = extensions.data();
  VkResult r = vkCreateInstance(&ci, nullptr, &instance_);
  if (r == VK_ERROR_LAYER_NOT_PRESENT && validation) {
    // Listed but not loadable: a manifest of another architecture's layer
    // (an x86-64 layer seen by an arm64 process under qemu, say). The
    // device still works; only the checking is lost, and that is said.
    std::fprintf(stderr, "mote: MOTE_VK_VALIDATION is set but VK_LAYER_KHRONOS_validation could not be loaded "
                         "(installed for another architecture?); continuing without validation\n");
    validation = false;
    ci.enabledLayerCount = 0;
    ci.enabledExtensionCount = 0;
    r = vkCreateInstance(&ci, nullptr, &instance_);
  }
  if (r != VK_SUCCESS) return vk_error("Vulkan unavailable: vkCreateInstance failed", r);
  volkLoadInstanceOnly(instance_);
  if (validation) {
    VkDebugUtilsMessengerCreateInfoEXT mi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mi.pfnUserCallback = &Device::on_validation_message;
    mi.pUserData = this;
    MOTE_VK_CHECK(vkCreateDebugUtilsMessengerEXT(instance_, &mi, nullptr, &messenger_), "vkCreateDebugUtilsMessengerEXT");
  }
  return {};
}

Status Device::pick_physical_device() {
  uint32_t n = 0;
  MOTE_VK_CHECK(vkEnumeratePhysicalDevices(instance_, &n, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> devices(n);
  MOTE_VK_CHECK(vkEnumeratePhysicalDevices(instance_, &n, devices.data()), "vkEnumeratePhysicalDevices");
  if (n == 0) return unsupported("Vulkan unavailable: the loader found no Vulkan device (no driver installed?)");
  std::vector<DeviceCandidate> candidates;
  for (VkPhysicalDevice pd : devices) {
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(pd, &props);
    uint32_t qn = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &qn, nullptr);
    std::vector<VkQueueFamilyProperties> qs(qn);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &qn, qs.data());
    DeviceCandidate c;
    c.name = props.deviceName;
    c.type = props.deviceType;
    c.api_version = props.apiVersion;
    c.has_compute_queue = std::any_of(qs.begin(), qs.end(), [](auto& q) { return q.queueFlags & VK_QUEUE_COMPUTE_BIT; });
    candidates.push_back(c);
  }
  MOTE_ASSIGN_OR_RETURN(size_t index, select_device(candidates, std::getenv("MOTE_VK_DEVICE")));
  physical_ = devices[index];
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(physical_, &props);
  info_.name = props.deviceName;
  info_.type = props.deviceType;
  info_.vendor_id = props.vendorID;
  info_.device_id = props.deviceID;
  info_.driver_version = props.driverVersion;
  info_.api_version = props.apiVersion;
  info_.index = static_cast<int>(index);
  std::memcpy(info_.pipeline_cache_uuid, props.pipelineCacheUUID, VK_UUID_SIZE);
  if (props.apiVersion >= VK_API_VERSION_1_2) {
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p2.pNext = &driver;
    vkGetPhysicalDeviceProperties2(physical_, &p2);
    info_.driver = std::string(driver.driverName) + " " + driver.driverInfo;
    info_.driver_id = static_cast<uint32_t>(driver.driverID);
  }
  uint32_t qn = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &qn, nullptr);
  std::vector<VkQueueFamilyProperties> qs(qn);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &qn, qs.data());
  // Prefer a compute-only family (async compute on desktop GPUs), else any
  // family with compute.
  int chosen = -1;
  for (uint32_t i = 0; i < qn; ++i) {
    if (!(qs[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
    bool compute_only = !(qs[i].queueFlags & VK_QUEUE_GRAPHICS_BIT);
    if (chosen < 0 || compute_only) chosen = static_cast<int>(i);
    if (compute_only) break;
  }
  queue_family_ = static_cast<uint32_t>(chosen);
  features_.timestamps = qs[queue_family_].timestampValidBits > 0 && props.limits.timestampComputeAndGraphics;
  features_.timestamp_period_ns = props.limits.timestampPeriod;
  return {};
}

void Device::probe_features() {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(physical_, &props);
  const VkPhysicalDeviceLimits& lim = props.limits;
  features_.max_shared_memory = lim.maxComputeSharedMemorySize;
  features_.max_workgroup_invocations = lim.maxComputeWorkGroupInvocations;
  for (int i = 0; i < 3; ++i) {
    features_.max_workgroup_size[i] = lim.maxComputeWorkGroupSize[i];
    features_.max_group_count[i] = lim.maxComputeWorkGroupCount[i];
  }
  features_.storage_offset_alignment = std::max<uint64_t>(lim.minStorageBufferOffsetAlignment, 4);
  features_.max_storage_buffer_range = lim.maxStorageBufferRange;

  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  p2.pNext = &subgroup;
  vkGetPhysicalDeviceProperties2(physical_, &p2);
  features_.subgroup_size = subgroup.subgroupSize;
  features_.subgroup_arithmetic = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                                  (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
  features_.subgroup_shuffle = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                               (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT);

  VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDevice8BitStorageFeatures storage8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features f16i8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  storage16.pNext = &storage8;
  storage8.pNext = &f16i8;
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.pNext = &storage16;
  vkGetPhysicalDeviceFeatures2(physical_, &f2);
  features_.fp16_storage = storage16.storageBuffer16BitAccess;
  features_.int8_storage = storage8.storageBuffer8BitAccess;
  features_.shader_float16 = f16i8.shaderFloat16;
  features_.int64 = f2.features.shaderInt64;

  uint32_t en = 0;
  vkEnumerateDeviceExtensionProperties(physical_, nullptr, &en, nullptr);
  std::vector<VkExtensionProperties> exts(en);
  vkEnumerateDeviceExtensionProperties(physical_, nullptr, &en, exts.data());
  auto has_ext = [&](const char* name) {
    return std::any_of(exts.begin(), exts.end(), [&](auto& e) { return std::strcmp(e.extensionName, name) == 0; });
  };
  if (has_ext(VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME)) {
    VkPhysicalDeviceShaderIntegerDotProductFeaturesKHR dot{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES_KHR};
    VkPhysicalDeviceFeatures2 with_dot{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    with_dot.pNext = &dot;
    vkGetPhysicalDeviceFeatures2(physical_, &with_dot);
    features_.int8_dot_product = dot.shaderIntegerDotProduct;
  }
  features_.cooperative_matrix = has_ext("VK_KHR_cooperative_matrix");
  // f16 arithmetic is enabled through the extension (the instance asks for
  // Vulkan 1.1, where it is not core), so only where the device lists it.
  features_.shader_float16 = features_.shader_float16 && has_ext(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  if (has_ext(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME)) {
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT host{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
    VkPhysicalDeviceProperties2 with_host{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    with_host.pNext = &host;
    vkGetPhysicalDeviceProperties2(physical_, &with_host);
    // Only where a storage buffer over host memory is importable.
    VkPhysicalDeviceExternalBufferInfo buffer{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
    buffer.usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    buffer.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    VkExternalBufferProperties external{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    vkGetPhysicalDeviceExternalBufferProperties(physical_, &buffer, &external);
    const VkExternalMemoryFeatureFlags can = external.externalMemoryProperties.externalMemoryFeatures;
    if (can & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT) {
      features_.host_import_alignment = host.minImportedHostPointerAlignment;
      features_.host_import_dedicated = can & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT;
    }
  }

  vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    VkMemoryPropertyFlags f = memory_.memoryTypes[i].propertyFlags;
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    // A small ReBAR-less window (256 MiB heaps on desktops) is not unified
    // memory: only count heaps that hold most of the device memory.
    const VkMemoryHeap& heap = memory_.memoryHeaps[memory_.memoryTypes[i].heapIndex];
    if ((f & want) == want && heap.size >= (1ull << 30)) features_.host_visible_device_local = true;
  }
  if (env_flag("MOTE_VK_FORCE_STAGING")) features_.host_visible_device_local = false;
  features_.int8_shaders = info_.type != VK_PHYSICAL_DEVICE_TYPE_CPU || env_flag("MOTE_VK_FORCE_INT8");
}

// MOTE_VK_DISABLE=subgroup,fp16 switches probed features off, so tests can
// cover the fallback shaders (shared memory instead of subgroup reductions
// and shuffles, f32 instead of f16 storage) on a device that has
// everything; `f16math` leaves f16 storage but not f16 arithmetic;
// `winograd` keeps 3x3 convolutions on the implicit GEMM; `import` refuses
// the caller's memory.
void Device::disable_features_from_environment() {
  const char* list = std::getenv("MOTE_VK_DISABLE");
  if (!list) return;
  std::string items = std::string(",") + list + ",";
  if (items.find(",subgroup,") != std::string::npos)
    features_.subgroup_arithmetic = features_.subgroup_shuffle = false;
  if (items.find(",fp16,") != std::string::npos) features_.fp16_storage = features_.shader_float16 = false;
  if (items.find(",f16math,") != std::string::npos) features_.shader_float16 = false;
  if (items.find(",int64,") != std::string::npos) features_.int64 = false;
  if (items.find(",dot,") != std::string::npos) features_.int8_dot_product = false;
  if (items.find(",winograd,") != std::string::npos) features_.winograd = false;
  if (items.find(",import,") != std::string::npos) features_.host_import_alignment = 0;
  quirks_.push_back(std::string("MOTE_VK_DISABLE=") + list);
}

// MOTE_VK_MAX_DISPATCHES_PER_SUBMIT=N caps the dispatches per submission as
// the Adreno quirk does, so tests can cover split submissions on any device.
Status Device::limit_submissions_from_environment() {
  const char* value = std::getenv("MOTE_VK_MAX_DISPATCHES_PER_SUBMIT");
  if (!value) return {};
  char* end = nullptr;
  long n = std::strtol(value, &end, 10);
  if (!*value || *end || n < 1 || n > 1000000) {
    return invalid_argument(std::string("MOTE_VK_MAX_DISPATCHES_PER_SUBMIT=") + value +
                            ": expected a number of dispatches from 1 to 1000000");
  }
  features_.max_dispatches_per_submit = static_cast<uint32_t>(n);
  quirks_.push_back(std::string("MOTE_VK_MAX_DISPATCHES_PER_SUBMIT=") + value);
  return {};
}

Status Device::create_logical_device() {
  float priority = 1.0f;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = queue_family_;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  storage16.storageBuffer16BitAccess = features_.fp16_storage;
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.pNext = &storage16;
  f2.features.shaderInt64 = features_.int64;
  // The integer dot-product instructions (qlinear_matmul_dot.comp) where the
  // device has them and they are not switched off.
  VkPhysicalDeviceShaderIntegerDotProductFeaturesKHR dot{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES_KHR};
  std::vector<const char*> extensions;
  // f16 arithmetic, for the f16-arithmetic shader variants (ShaderInfo::f16_math).
  VkPhysicalDeviceShaderFloat16Int8Features f16i8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  if (features_.shader_float16) {
    f16i8.shaderFloat16 = VK_TRUE;
    f16i8.pNext = storage16.pNext;
    storage16.pNext = &f16i8;
    extensions.push_back(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  }
  if (features_.int8_dot_product) {
    dot.shaderIntegerDotProduct = VK_TRUE;
    dot.pNext = storage16.pNext;
    storage16.pNext = &dot;
    extensions.push_back(VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
  }
  // Importing the caller's memory (Buffer::import_host); its dependency,
  // VK_KHR_external_memory, is core in Vulkan 1.1, which every device here has.
  if (features_.host_import_alignment) extensions.push_back(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
  VkDeviceCreateInfo ci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  ci.pNext = &f2;
  ci.queueCreateInfoCount = 1;
  ci.pQueueCreateInfos = &qi;
  ci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  ci.ppEnabledExtensionNames = extensions.data();
  // Vulkan 1.1 core has 16-bit storage; older 1.0-era drivers need the extension name.
  MOTE_VK_CHECK(vkCreateDevice(physical_, &ci, nullptr, &device_), "vkCreateDevice on '" + info_.name + "'");
  volkLoadDevice(device_);
  vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
  VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pi.queueFamilyIndex = queue_family_;
  MOTE_VK_CHECK(vkCreateCommandPool(device_, &pi, nullptr, &command_pool_), "vkCreateCommandPool");
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  MOTE_VK_CHECK(vkCreateFence(device_, &fi, nullptr, &fence_), "vkCreateFence");
  return {};
}

Device::~Device() {
  if (device_) {
    vkDeviceWaitIdle(device_);
    pipelines_.reset();
    if (fence_) vkDestroyFence(device_, fence_, nullptr);
    if (command_pool_) vkDestroyCommandPool(device_, command_pool_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }
  if (messenger_) vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

int Device::memory_type(uint32_t type_bits, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) const {
  int fallback = -1;
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    if (!(type_bits & (1u << i))) continue;
    VkMemoryPropertyFlags f = memory_.memoryTypes[i].propertyFlags;
    if ((f & required) != required) continue;
    if ((f & preferred) == preferred) return static_cast<int>(i);
    if (fallback < 0) fallback = static_cast<int>(i);
  }
  return fallback;
}

VkMemoryPropertyFlags Device::memory_flags(int type_index) const {
  return memory_.memoryTypes[static_cast<uint32_t>(type_index)].propertyFlags;
}

Status Device::submit_and_wait(const VkCommandBuffer* buffers, uint32_t count) {
  std::lock_guard<std::mutex> lock(queue_mutex_);
  // After a loss (seen by any session) the device takes no more work.
  if (device_lost()) return vk_error("vkQueueSubmit: the device was lost earlier", VK_ERROR_DEVICE_LOST);
  if (fault_fires(Fault::kDeviceLost)) {
    return vk_error("vkQueueSubmit (an injected fault, runtime/vulkan/faults.hpp)", VK_ERROR_DEVICE_LOST);
  }
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = count;
  si.pCommandBuffers = buffers;
  MOTE_VK_CHECK(vkResetFences(device_, 1, &fence_), "vkResetFences");
  MOTE_VK_CHECK(vkQueueSubmit(queue_, 1, &si, fence_), "vkQueueSubmit");
  MOTE_VK_CHECK(vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  return {};
}

Result<std::vector<std::string>> describe_devices() {
  MOTE_ASSIGN_OR_RETURN(Device * chosen, Device::get());
  std::vector<std::string> lines;
  const DeviceInfo& in = chosen->info();
  const DeviceFeatures& f = chosen->features();
  char buf[512];
  std::snprintf(buf, sizeof buf, "device %d: %s (%s, vendor 0x%04x, device 0x%04x, driver %s%s, Vulkan %u.%u)",
                in.index, in.name.c_str(), device_type_name(in.type), in.vendor_id, in.device_id,
                in.driver.empty() ? "" : in.driver.c_str(), in.driver.empty() ? std::to_string(in.driver_version).c_str() : "",
                VK_API_VERSION_MAJOR(in.api_version), VK_API_VERSION_MINOR(in.api_version));
  lines.push_back(buf);
  std::snprintf(buf, sizeof buf,
                "  fp16 storage %s, fp16 math %s, int8 storage %s, int8 dot %s, int64 %s, subgroup %u (arithmetic "
                "%s, shuffle %s), "
                "cooperative matrix %s",
                f.fp16_storage ? "yes" : "no", f.shader_float16 ? "yes" : "no", f.int8_storage ? "yes" : "no",
                f.int8_dot_product ? "yes" : "no", f.int64 ? "yes" : "no", f.subgroup_size,
                f.subgroup_arithmetic ? "yes" : "no", f.subgroup_shuffle ? "yes" : "no",
                f.cooperative_matrix ? "yes" : "no");
  lines.push_back(buf);
  std::snprintf(
      buf, sizeof buf,
      "  shared memory %u B, workgroup %u invocations, unified memory %s, caller memory import %s, "
      "timestamps %s",
      f.max_shared_memory, f.max_workgroup_invocations, f.host_visible_device_local ? "yes" : "no",
      f.host_import_alignment ? ("aligned to " + std::to_string(f.host_import_alignment) + " B").c_str() : "no",
      f.timestamps ? "yes" : "no");
  lines.push_back(buf);
  lines.push_back("  profile: " + chosen->profile().row + " (GEMM tile " + describe(f.gemm_tile) +
                  (f.gemm_rows_by_shuffle ? ", rows by subgroup shuffle" : "") +
                  (f.reduce_rows_per_invocation ? "; reduction rows of up to " +
                                                      std::to_string(f.reduce_rows_per_invocation) + " per invocation"
                                                : "") +
                  ")");
  for (const std::string& q : chosen->quirks()) lines.push_back("  quirk: " + q);
  return lines;
}

}  // namespace mote::vk
