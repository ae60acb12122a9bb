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

// Mixed storage precision (`--fp16 auto` in mote-run and mote-bench): which
// ops keep f32 storage on the GPU while the rest stores f16, chosen by
// measuring on a calibration input. The model runs once in f32 (the
// reference) with every op's outputs returned; an op making or reading
// values past f16's range (65504) stays f32; then rounds in f16 storage
// compare every intermediate with the reference and move to f32 each op that
// grows its inputs' error most, with the ops making its inputs, until the
// model's outputs are within the tolerance, nothing is left to pick, or
// max_rounds is spent. The result goes into SessionOptions::gpu_f32_ops (op
// names; "#N" for an unnamed op). The probe runs return every intermediate:
// they take more memory than a run (max_arena_bytes does not apply to them).
// With SessionOptions::gpu_f16_arithmetic in the options given, the f16 runs
// multiply in f16 as well, so an op is chosen f16 for its storage and its
// products together; when no choice then meets the tolerance, the choice is
// made again with f32 products (f16_arithmetic in the report says which
// was kept). Otherwise arithmetic is f32 and the choice is about storage.
struct GpuPrecisionOptions {
  // Largest accepted max |f16 - f32| / max |f32| over each float output.
  double tolerance = 1e-2;
  int max_rounds = 6;  // f16 runs after the first
  int runs = 3;        // timed runs per configuration in the report; 0: no timing
  std::function<void(const std::string&)> progress;
};

struct GpuOpPrecision {
  int op_index = 0;
  std::string op;         // "Conv 'conv1'"
  std::string precision;  // "f16" or "f32", as chosen
  bool f16_arithmetic = false;  // an f16 op whose products were f16 (gpu_f16_arithmetic)
  double error = 0;       // its outputs' relative error in the last f16 run
  double growth = 0;      // that error over its inputs' (1: passed on unchanged)
  std::string reason;     // why it stays f32; empty for f16 ops
};

struct GpuPrecisionReport {
  std::string device;
  std::vector<std::string> f32_ops;  // for SessionOptions::gpu_f32_ops
  bool met = false;                  // the outputs are within the tolerance with f32_ops; else run in f32
  // The choice multiplies in f16 (for SessionOptions::gpu_f16_arithmetic):
  // asked for, granted by the device to some op, and within the tolerance.
  bool f16_arithmetic = false;
  // Asked for but over the tolerance: the outputs' error with f16 products
  // at best (the rest of the report is the choice with f32 products).
  double error_f16_arithmetic = 0;
  double error_all_f16 = 0;          // the outputs' relative error with every op f16
  double error_chosen = 0;           // ... with f32_ops kept f32
  int rounds = 0;                    // f16 runs made
  std::vector<GpuOpPrecision> ops;   // the GPU ops, in graph order
  // Median wall time of a run in f32, all f16 and as chosen (runs > 0).
  double ms_f32 = 0, ms_all_f16 = 0, ms_chosen = 0;
};

// `inputs` are the calibration input, in the model's input order. Fails when
// no Vulkan device is usable or it has no 16-bit storage.
MOTE_API Result<GpuPrecisionReport> choose_gpu_precision(std::shared_ptr<const Model> model,
                                                         const std::vector<Tensor>& inputs, SessionOptions options,
                                                         const GpuPrecisionOptions& choose = {});

}  // namespace mote
