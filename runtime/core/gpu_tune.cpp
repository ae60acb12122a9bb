// tune_gpu_gemms (mote/gpu.hpp): per-shape GEMM tiles measured on the
// device. Every candidate tile is tried on the whole model through
// SessionOptions::gpu_gemm_tile, so each op is timed in place (its inputs
// arriving from the ops before it, as in a real run) by the GPU timestamps
// of a profiled session; a product shape's time under a configuration is the
// summed time of the ops launching it. Winners are confirmed by a second
// measurement with the tuning file in use before they stay in the file.
#include "runtime/core/gpu_tune.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "mote/gpu.hpp"

#if MOTE_HAS_VULKAN
#include "runtime/vulkan/device.hpp"
#include "runtime/vulkan/device_profile.hpp"
#include "runtime/vulkan/gemm_tuning.hpp"
#include "runtime/vulkan/pipeline_cache_file.hpp"
#endif

namespace mote {
namespace gpu_tune {

std::vector<ShapeChoice> choose_tiles(const Timings& base, const std::vector<Candidate>& candidates,
                                      double min_gain) {
  std::vector<ShapeChoice> out;
  for (const auto& [shape, b] : base) {
    ShapeChoice c{shape, b.ms, "", b.ms, false, ""};
    if (b.shares_op) {
      c.note = "its ops launch other products too: not tuned alone";
      out.push_back(c);
      continue;
    }
    for (const Candidate& cand : candidates) {
      auto it = cand.timings.find(shape);
      if (it == cand.timings.end() || it->second.ops != b.ops) continue;  // placed otherwise under this tile
      if (it->second.launched == b.launched) continue;                    // the profile's kernel again
      if (it->second.ms < c.best_ms) c.best = cand.tile, c.best_ms = it->second.ms;
    }
    c.write = !c.best.empty() && c.best_ms < b.ms * (1.0 - min_gain);
    out.push_back(c);
  }
  return out;
}

}  // namespace gpu_tune

#if MOTE_HAS_VULKAN
namespace {

using Clock = std::chrono::steady_clock;
using gpu_tune::ShapeTiming;
using gpu_tune::Timings;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string ms_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", ms);
  return buf;
}

struct Measurement {
  Timings timings;
  double model_ms = 0;  // median wall time of a run
};

// Runs the model `runs` times (after one warm-up) with per-op GPU timestamps.
Result<Measurement> measure(const std::shared_ptr<const Model>& model, const std::vector<Tensor>& inputs,
                            const SessionOptions& options, int runs) {
  MOTE_ASSIGN_OR_RETURN(auto session, Session::create(model, options));
  // The first run prepares for the inputs' shapes (a model with dynamic
  // inputs has no shape to prepare for without them) and warms up.
  MOTE_RETURN_IF_ERROR(session->run(inputs).status());
  Measurement m;
  const std::vector<OpPlacement> placement = session->placement();
  for (const OpPlacement& p : placement) {
    for (const GpuGemm& g : p.gemms) {
      ShapeTiming& t = m.timings[g.shape];
      t.launched = g.tile;
      t.ops.insert(p.op_index);
      t.shares_op = t.shares_op || p.gemms.size() > 1;
    }
  }
  std::map<std::string, std::vector<double>> per_run;
  std::vector<double> wall;
  for (int r = 0; r < runs; ++r) {
    auto start = Clock::now();
    MOTE_RETURN_IF_ERROR(session->run(inputs).status());
    wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    std::map<std::string, double> sums;
    for (const OpTime& t : session->profile()) {
      for (const GpuGemm& g : placement[static_cast<size_t>(t.op_index)].gemms) sums[g.shape] += t.ms;
    }
    for (const auto& [shape, ms] : sums) per_run[shape].push_back(ms);
  }
  for (auto& [shape, t] : m.timings) t.ms = median(per_run[shape]);
  m.model_ms = median(wall);
  return m;
}

// Tiles worth trying on each core: around the profiles' rows (more rows or
// columns per invocation, narrower or wider workgroups, shorter depth steps),
// and for the shared core the workgroup targets its tile choice is made for.
std::vector<std::string> default_candidates(const vk::GemmTileLimits& profile) {
  if (profile.shared_core) return {"shared:32", "shared:128", "shared:512", "shared:2048", "64x32x4x32"};
  return {"64x32x8x32", "64x64x4x32", "64x32x4x16", "128x32x4x32", "32x32x4x32", "64x16x4x32", "64x64x2x32"};
}

Status write_tuning(const std::string& path, const vk::GemmTuning& file, const vk::DeviceInfo& info) {
  std::string text = vk::encode_gemm_tuning(file, info);
  return vk::write_file_atomically(path, std::vector<uint8_t>(text.begin(), text.end()));
}

}  // namespace

Result<GpuTuneReport> tune_gpu_gemms(std::shared_ptr<const Model> model, const std::vector<Tensor>& inputs,
                                     SessionOptions options, const GpuTuneOptions& tune) {
  if (!model) return invalid_argument("tune_gpu_gemms: no model");
  if (tune.runs < 1) return invalid_argument("tune_gpu_gemms: runs must be at least 1");
  MOTE_ASSIGN_OR_RETURN(vk::Device * device, vk::Device::get());
  const vk::DeviceFeatures& features = device->features();
  if (!features.timestamps) {
    return unsupported("tune_gpu_gemms: the device has no timestamp queries to time ops with");
  }
  if (device->profile().gemm_from_environment) {
    // Every session would run the variable's tile, the baseline included.
    return invalid_argument("tune_gpu_gemms: MOTE_VK_GEMM_TILE is set; unset it to tune against the device profile");
  }
  const std::string dir =
      vk::pipeline_cache_dir(options.gpu_tuning_dir.empty() ? options.pipeline_cache_dir : options.gpu_tuning_dir);
  if (dir.empty()) return invalid_argument("tune_gpu_gemms: no directory for the tuning file (set MOTE_CACHE_DIR)");
  const bool f16 = options.gpu_precision == GpuPrecision::kF16Storage && features.fp16_storage;
  const vk::GemmPrecision precision =
      vk::gemm_precision(f16, f16 && options.gpu_f16_arithmetic && features.shader_float16);
  const std::string path = dir + "/" + vk::gemm_tuning_file_name(device->info(), precision);
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
  MOTE_ASSIGN_OR_RETURN(Measurement base, measure(model, inputs, options, tune.runs));
  if (base.timings.empty()) return unsupported("tune_gpu_gemms: the model runs no matrix product on the GPU");
  say("profile tiles: " + ms_text(base.model_ms) + " a run, " + std::to_string(base.timings.size()) +
      " GEMM shape(s)");

  std::vector<gpu_tune::Candidate> tried;
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
    say("candidate " + std::to_string(i + 1) + "/" + std::to_string(candidates.size()) + " " + candidate + ": " +
        ms_text(m->model_ms) + " a run");
    tried.push_back({candidate, std::move(m->timings)});
  }
  report.candidates_tried = static_cast<int>(tried.size());
  std::vector<gpu_tune::ShapeChoice> choices = gpu_tune::choose_tiles(base.timings, tried, tune.min_gain);

  // Every measured shape's entry is replaced (a stale winner that lost this
  // time goes); entries of shapes this model lacks stay.
  std::string note;
  vk::GemmTuning file = vk::load_gemm_tuning(dir, device->info(), features, precision, note);
  std::map<std::string, vk::GemmShape> keys;
  for (const auto& [shape, t] : base.timings) {
    if (auto key = vk::GemmShape::parse(shape)) file.entries.erase(keys[shape] = *key);
  }
  auto put = [&](const gpu_tune::ShapeChoice& c) {
    auto tile = vk::parse_gemm_tile(c.best, features.gemm_tile, features);
    if (tile.ok() && keys.count(c.shape)) file.entries[keys[c.shape]] = {tile.value(), c.best_ms};
  };
  int written = 0;
  for (const auto& c : choices) {
    if (c.write) put(c), ++written;
  }
  MOTE_RETURN_IF_ERROR(write_tuning(path, file, device->info()));
  report.path = path;

  // Confirmation: the profile's tiles and the file's, measured again back to
  // back (a VM's slow spell between the first runs and now would otherwise
  // decide); a winner must still be faster, else it was noise and its entry
  // goes.
  MOTE_ASSIGN_OR_RETURN(Measurement base_again, measure(model, inputs, options, tune.runs));
  options.use_gpu_tuning = true;
  options.gpu_tuning_dir = dir;
  MOTE_ASSIGN_OR_RETURN(Measurement after, measure(model, inputs, options, tune.runs));
  int dropped = 0;
  for (auto& c : choices) {
    if (!c.write) continue;
    auto it = after.timings.find(c.shape);
    auto again = base_again.timings.find(c.shape);
    const double profile_ms = again == base_again.timings.end() ? c.profile_ms : again->second.ms;
    if (it == after.timings.end() || it->second.ms >= profile_ms * (1.0 - tune.min_gain)) {
      c.write = false;
      c.note = "its gain did not hold when measured again";
      file.entries.erase(keys[c.shape]);
      ++dropped;
    } else {
      // The confirmed figures are what the report and the file give.
      c.profile_ms = profile_ms;
      c.best_ms = it->second.ms;
      file.entries[keys[c.shape]].ms = c.best_ms;
    }
  }
  if (dropped > 0) {
    MOTE_RETURN_IF_ERROR(write_tuning(path, file, device->info()));
    MOTE_ASSIGN_OR_RETURN(after, measure(model, inputs, options, tune.runs));
  }
  for (const auto& c : choices) {
    const ShapeTiming& b = base.timings[c.shape];
    report.shapes.push_back(
        {c.shape, b.launched, c.profile_ms, c.best.empty() ? b.launched : c.best, c.best_ms, c.write, c.note});
  }
  report.model_ms_before = base_again.model_ms;
  report.model_ms_after = after.model_ms;
  say("tuned: " + ms_text(after.model_ms) + " a run (" + std::to_string(written - dropped) + " shape(s) kept, " +
      std::to_string(dropped) + " dropped on confirmation)");
  return report;
}

#else  // !MOTE_HAS_VULKAN

Result<GpuTuneReport> tune_gpu_gemms(std::shared_ptr<const Model>, const std::vector<Tensor>&, SessionOptions,
                                     const GpuTuneOptions&) {
  return unsupported("Vulkan unavailable: Mote was built with MOTE_VULKAN=OFF");
}

#endif

}  // namespace mote
