// Compute pipelines, created on demand from the shader registry and kept for
// the life of the process, behind a VkPipelineCache persisted to disk
// (pipeline_cache_file.hpp) so the second start of an app skips the driver's
// shader compiler.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/vulkan/device.hpp"
#include "runtime/vulkan/pipeline_cache_file.hpp"
#include "shaders/shader_registry.hpp"

namespace mote::vk {

struct Pipeline {
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  uint32_t bindings = 0;
  uint32_t push_bytes = 0;
};

struct PipelineKey {
  ShaderId shader = ShaderId::kCount;
  bool fp16 = false;
  std::array<uint32_t, 3> local{64, 1, 1};
  std::vector<int32_t> constants;  // specialisation constants 3, 4, ...
  // The f16-arithmetic variant (ShaderInfo::f16_math); only with fp16, and
  // only for shaders that have one (pipeline_key).
  bool f16_math = false;
  auto operator<=>(const PipelineKey&) const = default;
};

// The key of one dispatch of a step whose float tensors are stored as f16
// (fp16) and whose products may be f16 (f16_math): f16 products only where
// the shader has that variant, so shaders without one share the f16
// pipeline.
PipelineKey pipeline_key(ShaderId shader, bool fp16, bool f16_math, const std::array<uint32_t, 3>& local,
                         const std::vector<int32_t>& constants);

struct PipelineCacheStats {
  std::string path;        // empty: not persisted
  std::string load_note;   // "loaded N bytes" or why the file was a miss
  uint64_t loaded_bytes = 0;
  // Size of the driver's cache data at the last save, or at the load when
  // nothing was saved since. A driver that keeps nothing returns only the
  // 32-byte header Vulkan defines.
  uint64_t driver_bytes = 0;
  int pipelines_created = 0;
};

// What happened to the cache, in a user's words, for `compiled` pipelines
// created by one prepare: "the driver keeps no pipeline cache; every start
// compiles 12 pipelines", "cold start: no cache file yet; 12 pipelines
// compiled and saved to PATH (40.2 KiB) for the next start", ...
std::string describe_pipeline_cache(const PipelineCacheStats& stats, int compiled);

class PipelineSet {
 public:
  explicit PipelineSet(Device& device);
  ~PipelineSet();

  // Creates the pipeline on first use. The error names the shader.
  Result<const Pipeline*> get(const PipelineKey& key);

  // Chooses the cache directory (see pipeline_cache_dir). The first call
  // loads the file; a later call with another directory saves the current
  // cache and loads from the new one.
  void configure_cache(const std::string& dir);
  // Writes the cache if pipelines were created since the last save.
  Status save_cache();
  // Destroys every pipeline and the in-memory cache (benchmarks measure a
  // cold prepare this way); the file on disk is kept.
  void reset();
  PipelineCacheStats stats();

 private:
  PipelineCacheKey cache_key() const;
  void load_cache_locked();
  Status save_cache_locked();
  Result<VkDescriptorSetLayout> set_layout_locked(uint32_t bindings);
  void destroy_locked();

  Device& device_;
  std::mutex mutex_;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  bool configured_ = false;
  bool dirty_ = false;
  std::string dir_;
  PipelineCacheStats stats_;
  std::map<PipelineKey, std::unique_ptr<Pipeline>> pipelines_;
  std::map<uint32_t, VkDescriptorSetLayout> set_layouts_;
  std::map<std::pair<uint32_t, uint32_t>, VkPipelineLayout> layouts_;
};

}  // namespace mote::vk
