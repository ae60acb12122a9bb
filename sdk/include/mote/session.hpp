// Session: runs a Model. prepare() plans for a set of input shapes (shape
// inference, constant folding, memory plan, kernel set-up); run() executes
// and re-plans by itself when the input shapes change.
//
// Threads (docs/runtime.md, "Threads"): a Model may be shared by any number
// of sessions on any threads, CPU and Vulkan alike (the Vulkan device and
// its pipeline cache are shared and locked inside). One Session runs one
// call at a time: give each thread its own. A call made while another
// thread is inside the same session fails with kInvalidArgument ("in use by
// another thread") instead of corrupting its memory; this check is on in
// every build. TrainingSession follows the same rules.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mote/export.hpp"
#include "mote/model.hpp"
#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

enum class Backend {
  kCpu,        // optimised CPU kernels
  kReference,  // plain reference kernels: slow, for checking results
  kVulkan,     // Vulkan compute, each op the GPU cannot run on the CPU
  kAuto,       // Vulkan on a real GPU, otherwise the CPU
};

MOTE_API const char* backend_name(Backend backend);
// Parses "cpu" / "reference" / "vulkan" / "auto"; error for anything else.
MOTE_API Result<Backend> parse_backend(const std::string& name);

// How float tensors are stored on the GPU. Arithmetic is f32 either way,
// unless SessionOptions::gpu_f16_arithmetic asks for f16 products as well.
enum class GpuPrecision {
  kF32,         // exact: results match the CPU to rounding
  kF16Storage,  // half the memory traffic; ~1e-3 relative error. Needs the
                // device's 16-bit storage, else the session uses kF32.
};

// What a Vulkan session does when the GPU fails under it (StatusCode::kGpuFault:
// the device lost, device memory exhausted). Either way nothing crashes, no
// wrong data comes back, and later calls work: on the CPU once the device is
// lost (for the rest of the process), on the GPU again after a failed
// allocation. docs/reliability.md has the tested matrix.
enum class GpuFaultPolicy {
  kFallBackToCpu,  // the call that hit the fault is finished on the CPU: same result
  kReturnError,    // that call returns the kGpuFault error; the next call starts afresh
};

struct SessionOptions {
  // MOTE_BACKEND=cpu|vulkan|auto|reference in the environment overrides it.
  // Vulkan (or auto) on a machine without Vulkan runs on the CPU, with a
  // one-line note on stderr.
  Backend backend = Backend::kCpu;
  // Threads for CPU kernels; 0 = one per hardware thread.
  int threads = 0;
  GpuPrecision gpu_precision = GpuPrecision::kF32;
  // With kF16Storage: ops (named as cpu_ops names them) whose tensors stay f32
  // on the GPU; conversions are inserted where f16 and f32 ops meet.
  // choose_gpu_precision (mote/gpu.hpp; `--fp16 auto` in the tools) picks
  // them by measuring each op's error on a calibration input.
  std::vector<std::string> gpu_f32_ops;
  // With kF16Storage: the f16 ops' Conv (on the implicit GEMM), Gemm and
  // MatMul also multiply in f16, summing the products of 8 consecutive depth
  // values in f16 and those sums in f32 (GPUs with fast f16 run such
  // products up to twice as fast). Needs the device's shaderFloat16; without
  // it the products stay f32 and PlanStats::gpu_precision says so. Other
  // kernels (depthwise, Attention, recurrent, elementwise) keep f32
  // arithmetic. Adds error on top of f16 storage, and a product or an 8-term
  // sum past 65504 becomes infinite even where inputs and outputs fit f16:
  // choose_gpu_precision, given these options, measures both per op.
  bool gpu_f16_arithmetic = false;
  // Op types ("Softmax"), op names, or "#N" (the op at index N of the graph)
  // forced onto the CPU.
  std::vector<std::string> cpu_ops;
  // A run of consecutive GPU ops whose outputs hold fewer elements than this
  // stays on the CPU: it would not pay for the transfers around it.
  int64_t min_gpu_island_elements = 4096;
  // Pipeline-cache directory; empty: $MOTE_CACHE_DIR, else ~/.cache/mote.
  std::string pipeline_cache_dir;
  // GPU GEMM tiles (Gemm, MatMul, Conv). With use_gpu_tuning, a product whose
  // shape tune_gpu_gemms (mote/gpu.hpp; `mote-bench --tune`) measured on this
  // device takes the tile that won there, from the tuning file
  // (gpu_tuning_dir); others take the device profile's tile.
  // gpu_gemm_tile, when set, is the tile of every product instead, written as
  // MOTE_VK_GEMM_TILE is ("LXxTMxTNxBK", "shared", "shared:N"; docs/vulkan.md):
  // for experiments and for tuning itself. prepare() fails on a malformed one.
  bool use_gpu_tuning = true;
  std::string gpu_gemm_tile;
  // Directory of the tuning file; empty: the pipeline-cache directory.
  std::string gpu_tuning_dir;
  // Per-op GPU timestamps and CPU timers on every run (Session::profile()).
  bool profile = false;
  // Most bytes a plan may take for its intermediates and outputs: the host
  // arena plus the run's outputs, the device arena on Vulkan, and tensors
  // whose shapes are known only while running. 0 = no limit. For apps that
  // take input shapes from outside: prepare() and run() refuse a larger plan
  // with kOutOfMemory and a message naming the bytes, without allocating.
  uint64_t max_arena_bytes = 0;
  // CPU: keeps 4-D float tensors that pass only between kernels able to take
  // it in a channel-blocked layout (docs/runtime.md), so depthwise and 1x1
  // convolutions skip transposing planes. Results are the same within
  // rounding; false keeps every tensor NCHW (for comparisons).
  bool channel_blocked_layout = true;
  GpuFaultPolicy gpu_faults = GpuFaultPolicy::kFallBackToCpu;
};

// One matrix product a GPU op launches, and the tile it runs with.
struct GpuGemm {
  std::string shape;   // "rows x cols x depth x batch", e.g. "512x49x4608x1"
  std::string tile;    // what runs: "64x32x2x32" (register core) or "shared 64x64, split-K 4"
  bool tuned = false;  // the tile came from the tuning file
};

// Where prepare() put one op, and why.
struct OpPlacement {
  int op_index = 0;
  std::string op;       // "Conv 'conv1'"
  std::string device;   // "vulkan", "cpu", or "folded" (computed at prepare)
  std::string reason;   // why not on the GPU; empty when it is
  std::vector<GpuGemm> gemms;  // on the GPU: its matrix products
  std::string precision;       // on the GPU: how its float tensors are stored, "f32" or "f16"
  // On the GPU with f16 storage: some of its shaders multiplied in f16
  // (SessionOptions::gpu_f16_arithmetic).
  bool f16_arithmetic = false;
};

// Time of one op in the last run (with SessionOptions::profile).
struct OpTime {
  int op_index = 0;
  std::string op;
  std::string device;
  double ms = 0;
};

// What prepare() decided, for tools and tests.
struct PlanStats {
  // Bytes of the one arena holding every planned intermediate.
  uint64_t arena_bytes = 0;
  // What those intermediates would take without sharing memory.
  uint64_t unshared_bytes = 0;
  // Bytes of constants folded at prepare time (weights converted, shape chains).
  uint64_t folded_bytes = 0;
  int ops_total = 0;
  int ops_folded = 0;   // computed once at prepare
  int ops_dynamic = 0;  // shapes known only at run time
  int blocked_tensors = 0;  // intermediates kept channel-blocked (channel_blocked_layout)
  double prepare_ms = 0;
  // The backend the plan runs on after resolving kAuto and fallbacks.
  Backend backend = Backend::kCpu;
  std::string device_name;  // the Vulkan device, when used
  int ops_gpu = 0;          // steps recorded into Vulkan command buffers
  int ops_cpu = 0;          // steps run by CPU kernels
  int gpu_segments = 0;     // command buffers (runs of consecutive GPU ops)
  int gpu_dispatches = 0;
  int gpu_views = 0;  // GPU ops dispatching nothing: output in the input's memory (Reshape)
  int gpu_barriers = 0;
  int gpu_transfers = 0;    // uploads plus downloads per run
  uint64_t device_arena_bytes = 0;
  uint64_t device_weight_bytes = 0;
  int pipelines_created = 0;     // by this prepare (0 when all were cached)
  std::string pipeline_cache;    // what happened to the pipeline cache, in words (cold/warm start, where)
  // Where the GPU GEMM tiles came from, in words: the tuning file and how
  // many of the plan's products it covered, or the override.
  std::string gpu_gemm_tuning;
  // How float tensors are stored on the GPU, in words: "f32", or "f16" with
  // the ops kept f32 and the conversions between them.
  std::string gpu_precision;
  // The GPU fault this session survived by moving to the CPU, in words; empty
  // when none (SessionOptions::gpu_faults).
  std::string gpu_fault;
};

class MOTE_API Session {
 public:
  static Result<std::unique_ptr<Session>> create(std::shared_ptr<const Model> model, SessionOptions options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const Model& model() const;
  const SessionOptions& options() const;

  // Plans for these input shapes, given by input name; inputs left out keep
  // the model's declared shape (which must then be static).
  Status prepare(const std::map<std::string, Shape>& input_shapes = {});

  // Runs with inputs in the model's input order; returns the outputs in the
  // model's output order. The outputs own their memory, except those the
  // caller asked to read in place (mapped_output).
  Result<std::vector<Tensor>> run(const std::vector<Tensor>& inputs);
  // Same, by name.
  Result<std::map<std::string, Tensor>> run(const std::map<std::string, Tensor>& inputs);

  // Zero-copy input on unified memory (Jetson, phones, integrated GPUs,
  // lavapipe; also discrete GPUs whose video memory the CPU maps, where
  // writes cross the bus): a Tensor over the device memory the GPU reads
  // input `name` from. Fill it and pass it to run(), which then copies
  // nothing for that input. The GPU never writes those bytes, so they keep
  // their contents between runs, unless a run is given another Tensor for
  // that input: its upload lands there. Call after prepare(); the first call
  // for an input plans again (once: the plan then keeps that input's bytes
  // to itself for the whole run, where other inputs share theirs with
  // intermediates), and so does the first mapped_output for an output:
  // take the views you keep after both. A later plan for other shapes has
  // its own memory, and this Tensor (still valid: it keeps the old device
  // memory alive, uncounted in max_arena_bytes) is then copied like any
  // other input. A lost device takes the contents with it:
  // that run fails (kGpuFault) instead of finishing on the CPU. kUnsupported,
  // saying why, where the GPU cannot read the input in place: a CPU plan, a
  // GPU whose memory the CPU does not map (inputs go through staging), f16
  // storage of the input, or an input no GPU op reads.
  Result<Tensor> mapped_input(const std::string& name);

  // Zero-copy output on unified memory, the other way: a Tensor over the
  // device memory the GPU writes output `name` to. From this call on, run()
  // returns that output as a Tensor sharing device bytes instead of a copy
  // of its own: each run overwrites them, so read (or clone) an output
  // before the next run. Passing it back as an input (a recurrent state) is
  // safe: run() copies such an input first. Call after prepare(); the first
  // call for an output plans again (once; the plan then keeps that output's
  // bytes to the end of each run), as does the first mapped_input for an
  // input: every view taken before such a call (input or output) belongs to
  // the old plan from then on, so take the views you keep after the last.
  // Every later plan keeps the output too, but a plan for other shapes (or
  // after a GPU fault) has memory of its own: read the Tensor run() returns,
  // not an old view. A run finished on the CPU after a lost device returns
  // an output of its own. Where the device's memory is not cached for the
  // CPU (Resizable-BAR GPUs, some phone drivers), reading it is slow: read
  // each value once. kUnsupported, saying why, where the output cannot be
  // read in place: a CPU plan, a GPU whose memory the CPU does not map, f16
  // storage of the output, or an output no GPU op makes.
  Result<Tensor> mapped_output(const std::string& name);

  // Zero-copy input from the caller's own memory (a camera frame, a buffer
  // another library filled): the GPU reads input `name` straight from
  // `data` on every run (VK_EXT_external_memory_host), where mapped_input
  // hands out device memory to fill instead. `data` must be aligned to
  // import_alignment() and `bytes` a multiple of it, at least the input's
  // size (4096 on lavapipe: allocate with std::aligned_alloc and round the
  // size up). Returns a Tensor over `data` with the input's shape;
  // pass it to run(), which then copies nothing for that input (a run given
  // another Tensor for it copies that one into `data`). Keep the memory
  // valid, and do not write it during a run, until the session is destroyed
  // or plans for other input shapes, which forgets the import (the input is
  // then copied like any other). Ordinary writable memory only (malloc,
  // aligned_alloc, anonymous mmap): drivers refuse read-only or file-backed
  // pages, and no two imports may overlap. On a discrete GPU the shaders
  // read that memory over the bus each time they touch it, instead of one
  // staging copy (not measured on one yet). Call after
  // prepare(); the first call for an input, or a call with other memory,
  // plans again. Errors name the input: kInvalidArgument for memory that is
  // misaligned, too small, overlaps another import or that the driver
  // refuses to import; kUnsupported, saying why, where the GPU cannot
  // read the input there (a CPU plan, where a Tensor::borrow over `data`
  // given to run() is already read in place; a device without the
  // extension; an input no GPU op reads). With f16 storage the input stays
  // f32 there and its f16 readers get a converted copy.
  Result<Tensor> import_input(const std::string& name, void* data, size_t bytes);

  // Zero-copy output into the caller's own memory, the other way: the GPU
  // writes output `name` to `data`, and run() returns that output as a
  // Tensor over `data` (no copy), overwritten by every run. The same rules
  // for alignment, size, overlap and lifetime; kUnsupported where the GPU
  // cannot write it there (a CPU plan, no extension, an output stored as
  // f16, an output no GPU op makes). A run finished on the CPU after a GPU
  // fault returns an output of its own.
  Result<Tensor> import_output(const std::string& name, void* data, size_t bytes);

  // The alignment of address and size import_input and import_output need,
  // or 0 where this session's plan cannot take the caller's memory (a CPU
  // plan, a device without VK_EXT_external_memory_host, before prepare()).
  size_t import_alignment() const;

  // Threads the CPU kernels use (the resolved value of options().threads).
  int thread_count() const;

  // Valid after prepare (or the first run), until the next plan (other
  // shapes, a GPU fault, a first mapped_input or mapped_output).
  const PlanStats& plan_stats() const;
  // One entry per op, in graph order. Valid after prepare.
  std::vector<OpPlacement> placement() const;
  // Per-op times of the last run; empty unless SessionOptions::profile.
  std::vector<OpTime> profile() const;

 private:
  Session();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mote
