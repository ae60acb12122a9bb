// tune_gpu_gemms (mote/gpu.hpp): per-shape GEMM tiles measured on the
// device. Every candidate tile is tried on the whole model through
// SessionOptions::gpu_gemm_tile, so each op is timed in place (its inputs
// arriving from the ops before it, as in a real run) by the GPU timestamps
// of a profiled session; a product shape's score under a candidate is the
// summed time of the ops that launch it.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <map>

#include "mote/gpu.hpp"

#if MOTE_HAS_VULKAN
#include "runtime/vulkan/device.hpp"
#include "runtime/vulkan/device_profile.hpp"
#include "runtime/vulkan/gemm_tuning.hpp"
#include "runtime/vulkan/pipeline_cache_file.hpp"
#endif

namespace mote {

#if MOTE_HAS_VULKAN
namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// What one configuration measured: per product shape, the median over runs
// of the summed GPU time of the ops launching it (absent when one of those
// ops left the GPU under this tile), and the median wall time of a run.
struct Measurement {
  std::map<std::string, double> shape_ms;
  std::map<std::string, std::string> shape_tile;  // the tile each shape ran on
  double model_ms = 0;
};

Result<Measurement> measure(const std::shared_ptr<const Model>& model, const std::vector<Tensor>& inputs,
                            const SessionOptions& options, int runs) {
  MOTE_ASSIGN_OR_RETURN(auto session, Session::create(model, options));
  MOTE_RETURN_IF_ERROR(session->prepare());
  MOTE_RETURN_IF_ERROR(session->run(inputs).status());  // warm-up
  std::vector<OpPlacement> placement = session->placement();
  std::map<std::string, std::vector<double>> per_run;
  std::vector<double> wall;
  std::map<std::string, bool> left_gpu;
  Measurement m;
  for (const OpPlacement& p : placement) {
    for (const GpuGemm& g : p.gemms) m.shape_tile[g.shape] = g.tile;
  }
  for (int r = 0; r < runs; ++r) {
    auto start = Clock::now();
    MOTE_RETURN_IF_ERROR(session->run(inputs).status());
    wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    std::map<std::string, double> sums;
    for (const OpTime& t : session->profile()) {
      const OpPlacement& p = placement[static_cast<size_t>(t.op_index)];
      for (const GpuGemm& g : p.gemms) {
        sums[g.shape] += t.ms;
        if (t.device != "vulkan") left_gpu[g.shape] = true;
      }
    }
    for (const auto& [shape, ms] : sums) per_run[shape].push_back(ms);
  }
  for (const auto& [shape, times] : per_run) {
    if (!left_gpu.count(shape)) m.shape_ms[shape] = median(times);
  }
  m.model_ms = median(wall);
  return m;
}

// Tiles worth trying on each core: around the profiles' rows (more rows or
// columns per invocation, narrower or wider workgroups, shorter depth steps),
// and for the shared core the workgroup targets its tile choice is made for.
std::vector<std::string> default_candidates(const vk::GemmTileLimits& profile) {
  std::vector<std::string> out;
  if (profile.shared_core)
    out = {"shared:32", "shared:128", "shared:512", "shared:2048", "64x32x4x32"};
  else
    out = {"64x32x8x32", "64x64x4x32", "64x32x4x16", "128x32x4x32", "32x32x4x32", "64x16x4x32", "64x64x2x32"};
  return out;
}

std::string ms_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", ms);
  return buf;
}

bool parse_shape(const std::string& text, vk::GemmShape& shape) {
  return std::sscanf(text.c_str(), "%" SCNd64 "x%" SCNd64 "x%" SCNd64 "x%" SCNd64, &shape.rows, &shape.cols,
                     &shape.depth, &shape.batch) == 4;
}

}  // namespace

Result<GpuTuneReport> tune_gpu_gemms(std::shared_ptr<const Model> model, const std::vector<Tensor>& inputs,
                                     SessionOptions options, const GpuTuneOptions& tune) {
  if (!model) return invalid_argument("tune_gpu_gemms: no model");
  if (tune.runs < 1) return invalid_argument("tune_gpu_gemms: runs must be at least 1");
  MOTE_ASSIGN_OR_RETURN(vk::Device * device, vk::Device::get());
  const vk::DeviceFeatures& features = device->features();
  auto say = [&](const std::string& line) {
    if (tune.progress) tune.progress(line);
  };
  const auto start = Clock::now();
  auto elapsed_s = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };

  options.backend = Backend::kVulkan;
  options.profile = true;
  options.gpu_faults = GpuFaultPolicy::kReturnError;  // a candidate must not be timed on the CPU
  options.gpu_gemm_tile.clear();
  options.use_gpu_tuning = false;

  GpuTuneReport report;
  report.device = device->info().name;
  const std::string profile_tile = vk::format_gemm_tile(features.gemm_tile);
  MOTE_ASSIGN_OR_RETURN(Measurement base, measure(model, inputs, options, tune.runs));
  if (base.shape_ms.empty()) return unsupported("tune_gpu_gemms: the model runs no matrix product on the GPU");
  say("profile tile " + profile_tile + ": " + ms_text(base.model_ms) + " a run, " +
      std::to_string(base.shape_ms.size()) + " GEMM shape(s)");

  // Per shape: the best (tile, ms) so far, starting from the profile's.
  std::map<std::string, std::pair<std::string, double>> best;
  for (const auto& [shape, ms] : base.shape_ms) best[shape] = {base.shape_tile[shape], ms};

  std::vector<std::string> candidates =
      tune.candidates.empty() ? default_candidates(features.gemm_tile) : tune.candidates;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::string& candidate = candidates[i];
    if (elapsed_s() > tune.budget_seconds) {
      report.skipped.push_back(candidate + ": over the time budget");
      continue;
    }
    if (auto valid = vk::parse_gemm_tile(candidate, features.gemm_tile, features); !valid.ok()) {
      report.skipped.push_back(candidate + ": " + valid.status().message());
      continue;
    }
    SessionOptions with = options;
    with.gpu_gemm_tile = candidate;
    auto m = measure(model, inputs, with, tune.runs);
    if (!m.ok()) {
      report.skipped.push_back(candidate + ": " + m.status().message());
      continue;
    }
    ++report.candidates_tried;
    say("candidate " + std::to_string(i + 1) + "/" + std::to_string(candidates.size()) + " " + candidate + ": " +
        ms_text(m->model_ms) + " a run");
    for (const auto& [shape, ms] : m->shape_ms) {
      auto it = best.find(shape);
      if (it != best.end() && ms < it->second.second) it->second = {candidate, ms};
    }
  }

  // Merge the winners into the file (entries of other models stay).
  const std::string dir =
      vk::pipeline_cache_dir(options.gpu_tuning_dir.empty() ? options.pipeline_cache_dir : options.gpu_tuning_dir);
  std::string note;
  vk::GemmTuning file = vk::load_gemm_tuning(dir, device->info(), features, note);
  int written = 0;
  for (const auto& [shape, ms] : base.shape_ms) {
    GpuTunedShape s{shape, profile_tile, ms, best[shape].first, best[shape].second, false};
    vk::GemmShape key;
    if (parse_shape(shape, key) && s.best_ms < ms * (1.0 - tune.min_gain)) {
      auto tile = vk::parse_gemm_tile(s.best_tile, features.gemm_tile, features);
      if (tile.ok()) {
        file.entries[key] = {tile.value(), s.best_ms};
        s.written = true;
        ++written;
      }
    }
    report.shapes.push_back(s);
  }
  if (written > 0) {
    if (dir.empty()) return io_error("tune_gpu_gemms: no cache directory to write to (set MOTE_CACHE_DIR)");
    report.path = dir + "/" + vk::gemm_tuning_file_name(device->info());
    std::string text = vk::encode_gemm_tuning(file, device->info());
    MOTE_RETURN_IF_ERROR(vk::write_file_atomically(report.path, std::vector<uint8_t>(text.begin(), text.end())));
  }

  report.model_ms_before = base.model_ms;
  options.use_gpu_tuning = true;
  MOTE_ASSIGN_OR_RETURN(Measurement after, measure(model, inputs, options, tune.runs));
  report.model_ms_after = after.model_ms;
  say("tuned: " + ms_text(after.model_ms) + " a run (" + std::to_string(written) + " shape(s) written)");
  return report;
}

#else  // !MOTE_HAS_VULKAN

Result<GpuTuneReport> tune_gpu_gemms(std::shared_ptr<const Model>, const std::vector<Tensor>&, SessionOptions,
                                     const GpuTuneOptions&) {
  return unsupported("Vulkan unavailable: Mote was built with MOTE_VULKAN=OFF");
}

#endif

}  // namespace mote
