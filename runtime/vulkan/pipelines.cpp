#include "runtime/vulkan/pipelines.hpp"

#include <cstdio>
#include <cstring>

#include "runtime/vulkan/faults.hpp"

namespace mote::vk {

namespace {

// VkPipelineCacheHeaderVersionOne: length, version, vendor, device, UUID.
constexpr uint64_t kDriverHeaderBytes = 16 + VK_UUID_SIZE;

std::string kib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  return buf;
}

std::string pipelines(int n) { return std::to_string(n) + " pipeline" + (n == 1 ? "" : "s"); }

}  // namespace

std::string describe_pipeline_cache(const PipelineCacheStats& stats, int compiled) {
  if (stats.path.empty()) return "not kept: " + stats.load_note + "; every start compiles " + pipelines(compiled);
  if (stats.driver_bytes > 0 && stats.driver_bytes <= kDriverHeaderBytes) {
    return "the driver keeps no pipeline cache; every start compiles " + pipelines(compiled);
  }
  if (stats.loaded_bytes > 0) {
    return "warm start: " + kib(stats.loaded_bytes) + " of compiled pipelines read from " + stats.path + "; " +
           pipelines(compiled) + " created from it (new ones are added to the file)";
  }
  std::string why = stats.load_note.rfind("miss: ", 0) == 0 ? stats.load_note.substr(6) : stats.load_note;
  return "cold start (" + why + "); " + pipelines(compiled) + " compiled" +
         (stats.driver_bytes > 0
              ? " and saved to " + stats.path + " (" + kib(stats.driver_bytes) + ") for the next start"
              : "");
}

PipelineSet::PipelineSet(Device& device) : device_(device) {}

PipelineSet::~PipelineSet() {
  std::lock_guard<std::mutex> lock(mutex_);
  Status saved = save_cache_locked();  // best effort at exit: no one to report to
  (void)saved;
  destroy_locked();
}

PipelineCacheKey PipelineSet::cache_key() const {
  PipelineCacheKey key;
  key.vendor_id = device_.info().vendor_id;
  key.device_id = device_.info().device_id;
  key.driver_version = device_.info().driver_version;
  std::memcpy(key.uuid, device_.info().pipeline_cache_uuid, 16);
  key.shader_set_hash = kShaderSetHash;
  return key;
}

void PipelineSet::configure_cache(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string resolved = pipeline_cache_dir(dir);
  if (configured_ && resolved == dir_) return;
  if (configured_) {
    Status saved = save_cache_locked();  // best effort: the old directory is being left
    (void)saved;
  }
  dir_ = resolved;
  configured_ = true;
  if (cache_) vkDestroyPipelineCache(device_.handle(), cache_, nullptr);
  cache_ = VK_NULL_HANDLE;
  load_cache_locked();
}

void PipelineSet::load_cache_locked() {
  std::vector<uint8_t> blob;
  stats_.loaded_bytes = 0;
  stats_.path = dir_.empty() ? std::string() : dir_ + "/" + pipeline_cache_file_name(cache_key());
  if (stats_.path.empty()) {
    stats_.load_note = "no cache directory (set MOTE_CACHE_DIR or HOME)";
  } else if (auto file = read_file_bytes(stats_.path); !file.ok()) {
    stats_.load_note = "miss: no cache file yet";
  } else if (auto decoded = decode_pipeline_cache(cache_key(), file.value()); !decoded.ok()) {
    stats_.load_note = "miss: " + stats_.path + " " + decoded.status().message();
  } else {
    blob = std::move(decoded).value();
    stats_.loaded_bytes = blob.size();
    stats_.driver_bytes = blob.size();
    stats_.load_note = "hit: loaded " + std::to_string(blob.size()) + " bytes from " + stats_.path;
  }
  VkPipelineCacheCreateInfo ci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  ci.initialDataSize = blob.size();
  ci.pInitialData = blob.empty() ? nullptr : blob.data();
  if (vkCreatePipelineCache(device_.handle(), &ci, nullptr, &cache_) != VK_SUCCESS) {
    // The driver rejected data that passed our header check: start empty.
    ci.initialDataSize = 0;
    ci.pInitialData = nullptr;
    stats_.loaded_bytes = 0;
    stats_.load_note = "miss: the driver rejected " + stats_.path;
    if (vkCreatePipelineCache(device_.handle(), &ci, nullptr, &cache_) != VK_SUCCESS) cache_ = VK_NULL_HANDLE;
  }
  dirty_ = false;
}

Status PipelineSet::save_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  return save_cache_locked();
}

Status PipelineSet::save_cache_locked() {
  if (!dirty_ || !cache_ || stats_.path.empty()) return {};
  size_t size = 0;
  MOTE_VK_CHECK(vkGetPipelineCacheData(device_.handle(), cache_, &size, nullptr), "vkGetPipelineCacheData");
  std::vector<uint8_t> blob(size);
  MOTE_VK_CHECK(vkGetPipelineCacheData(device_.handle(), cache_, &size, blob.data()), "vkGetPipelineCacheData");
  blob.resize(size);
  stats_.driver_bytes = size;
  MOTE_RETURN_IF_ERROR(write_file_atomically(stats_.path, encode_pipeline_cache(cache_key(), blob)));
  dirty_ = false;
  return {};
}

void PipelineSet::destroy_locked() {
  VkDevice d = device_.handle();
  for (auto& [key, p] : pipelines_) vkDestroyPipeline(d, p->pipeline, nullptr);
  pipelines_.clear();
  for (auto& [key, l] : layouts_) vkDestroyPipelineLayout(d, l, nullptr);
  layouts_.clear();
  for (auto& [key, l] : set_layouts_) vkDestroyDescriptorSetLayout(d, l, nullptr);
  set_layouts_.clear();
  if (cache_) vkDestroyPipelineCache(d, cache_, nullptr);
  cache_ = VK_NULL_HANDLE;
}

void PipelineSet::reset() {
  std::lock_guard<std::mutex> lock(mutex_);
  vkDeviceWaitIdle(device_.handle());
  destroy_locked();
  configured_ = false;
  stats_ = {};
}

PipelineCacheStats PipelineSet::stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

Result<VkDescriptorSetLayout> PipelineSet::set_layout_locked(uint32_t bindings) {
  auto it = set_layouts_.find(bindings);
  if (it != set_layouts_.end()) return it->second;
  std::vector<VkDescriptorSetLayoutBinding> b(bindings);
  for (uint32_t i = 0; i < bindings; ++i) {
    b[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  }
  VkDescriptorSetLayoutCreateInfo ci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  ci.bindingCount = bindings;
  ci.pBindings = b.data();
  VkDescriptorSetLayout layout;
  MOTE_VK_CHECK(vkCreateDescriptorSetLayout(device_.handle(), &ci, nullptr, &layout), "vkCreateDescriptorSetLayout");
  set_layouts_[bindings] = layout;
  return layout;
}

PipelineKey pipeline_key(ShaderId shader, bool fp16, bool f16_math, const std::array<uint32_t, 3>& local,
                         const std::vector<int32_t>& constants) {
  const bool math = fp16 && f16_math && shader_info(shader).f16_math.words != nullptr;
  return PipelineKey{shader, fp16, local, constants, math};
}

Result<const Pipeline*> PipelineSet::get(const PipelineKey& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = pipelines_.find(key);
  if (found != pipelines_.end()) return found->second.get();
  if (!configured_) {
    dir_ = pipeline_cache_dir("");
    configured_ = true;
    load_cache_locked();
  }
  const ShaderInfo& info = shader_info(key.shader);
  std::string what = std::string("shader '") + info.name + "' (" +
                     (key.f16_math ? "f16 arithmetic"
                      : key.fp16   ? "f16"
                                   : "f32") +
                     ")";
  if (key.f16_math && !info.f16_math.words)
    return internal_error(what + ": the shader has no f16-arithmetic variant");
  VkDevice d = device_.handle();
  auto p = std::make_unique<Pipeline>();
  p->bindings = info.bindings;
  p->push_bytes = info.push_bytes;
  MOTE_ASSIGN_OR_RETURN(p->set_layout, set_layout_locked(info.bindings));
  auto layout_key = std::make_pair(info.bindings, info.push_bytes);
  if (auto it = layouts_.find(layout_key); it != layouts_.end()) {
    p->layout = it->second;
  } else {
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, info.push_bytes};
    VkPipelineLayoutCreateInfo li{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    li.setLayoutCount = 1;
    li.pSetLayouts = &p->set_layout;
    li.pushConstantRangeCount = info.push_bytes ? 1 : 0;
    li.pPushConstantRanges = &range;
    MOTE_VK_CHECK(vkCreatePipelineLayout(d, &li, nullptr, &p->layout), "vkCreatePipelineLayout for " + what);
    layouts_[layout_key] = p->layout;
  }
  const ShaderSpirv& spirv = key.f16_math ? info.f16_math : key.fp16 ? info.f16 : info.f32;
  VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mi.codeSize = spirv.word_count * 4;
  mi.pCode = spirv.words;
  VkShaderModule module;
  MOTE_VK_CHECK(vkCreateShaderModule(d, &mi, nullptr, &module), "vkCreateShaderModule for " + what);

  std::vector<uint32_t> values{key.local[0], key.local[1], key.local[2]};
  for (int32_t c : key.constants) values.push_back(static_cast<uint32_t>(c));
  std::vector<VkSpecializationMapEntry> entries(values.size());
  for (uint32_t i = 0; i < values.size(); ++i) entries[i] = {i, i * 4, 4};
  VkSpecializationInfo spec{static_cast<uint32_t>(entries.size()), entries.data(), values.size() * 4, values.data()};
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module;
  ci.stage.pName = "main";
  ci.stage.pSpecializationInfo = &spec;
  ci.layout = p->layout;
  VkResult r = fault_fires(Fault::kPipeline) ? VK_ERROR_INITIALIZATION_FAILED
                                             : vkCreateComputePipelines(d, cache_, 1, &ci, nullptr, &p->pipeline);
  vkDestroyShaderModule(d, module, nullptr);
  if (r != VK_SUCCESS) return vk_error("vkCreateComputePipelines for " + what, r);
  ++stats_.pipelines_created;
  dirty_ = true;
  const Pipeline* out = p.get();
  pipelines_[key] = std::move(p);
  return out;
}

}  // namespace mote::vk
