// The GPU (Vulkan) device as the C++ API exposes it: what it is, and the
// pipeline cache behind it. Sessions pick the device themselves; these calls
// are for tools, diagnostics and benchmarks.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mote/export.hpp"
#include "mote/model.hpp"
#include "mote/session.hpp"
#include "mote/status.hpp"
#include "mote/tensor.hpp"

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

// The directory Mote keeps GPU caches in when SessionOptions name none:
// $MOTE_CACHE_DIR, else $XDG_CACHE_HOME/mote, else $HOME/.cache/mote; empty
// when none is known.
MOTE_API std::string default_gpu_cache_dir();

// GEMM tuning (`mote-bench --tune`): times the model with each candidate tile
// for all its GPU matrix products (Gemm, MatMul, Conv), picks per product
// shape the tile under which the ops of that shape took least GPU time, and
// writes the winners that beat the device profile's tile into the tuning file
// (SessionOptions::gpu_tuning_dir, else the pipeline-cache directory). A
// winner stays only if a second run with the file in use, back to back with
// the profile's tiles, confirms its gain of min_gain;
// the model's other shapes lose any older entry, other models' entries stay.
// Products of ops that launch several (Attention) are not tuned. Sessions
// read that file at prepare (SessionOptions::use_gpu_tuning), so the cost is
// paid once per device and driver, not at every start.
struct GpuTuneOptions {
  // Tiles to try, as MOTE_VK_GEMM_TILE writes them; empty: a built-in list
  // for the device's GEMM core (docs/vulkan.md).
  std::vector<std::string> candidates;
  int runs = 3;                 // timed runs per candidate, after one warm-up
  double budget_seconds = 120;  // no candidate starts after this
  // A winner must beat the profile's tile by this fraction to be written
  // (smaller differences are run-to-run noise).
  double min_gain = 0.03;
  // One line per step, for progress output; may be empty.
  std::function<void(const std::string&)> progress;
};

struct GpuTunedShape {
  std::string shape;         // "512x49x4608x1"
  std::string profile_tile;  // the tile the device profile ran it on (GpuGemm::tile)
  double profile_ms = 0;     // GPU time of the ops with this shape on it
  std::string best_tile;     // the fastest candidate, or profile_tile
  double best_ms = 0;
  bool written = false;  // beat the profile by min_gain twice: in the file (ms: the confirming runs)
  std::string note;      // why not written, when not for lack of gain
};

struct GpuTuneReport {
  std::string device;
  std::string path;  // the tuning file written
  std::vector<GpuTunedShape> shapes;
  int candidates_tried = 0;
  std::vector<std::string> skipped;  // candidates not run, with the reason
  // Median wall time of one run with the profile's tiles and with the tuned
  // ones, measured back to back at the end.
  double model_ms_before = 0, model_ms_after = 0;
};

// `options` is used for backend-independent settings (threads, cache
// directory); the tuner runs Vulkan sessions with profiling. Fails when no
// Vulkan device is usable or the model does not run.
MOTE_API Result<GpuTuneReport> tune_gpu_gemms(std::shared_ptr<const Model> model, const std::vector<Tensor>& inputs,
                                              SessionOptions options, const GpuTuneOptions& tune = {});

}  // namespace mote
