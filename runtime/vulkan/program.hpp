// A prepared graph's GPU side: the device memory of every tensor the GPU
// touches, the weights uploaded once, and one pre-recorded command buffer
// per GPU segment (a maximal run of consecutive GPU steps), resubmitted on
// every run.
//
// Each segment's command buffer uploads the tensors it reads that the CPU
// produced (graph inputs, outputs of CPU steps), runs its dispatches with a
// barrier only where a dispatch reads or overwrites memory an earlier,
// unbarriered dispatch wrote or read, and downloads what the CPU or the
// caller reads next. On unified-memory devices the arena is mapped and the
// transfers are plain host copies with no copy commands.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/vulkan/buffer.hpp"
#include "runtime/vulkan/pipelines.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {

// What the program needs to know about one tensor of the graph.
struct ProgramTensor {
  DType dtype = DType::F32;
  int64_t numel = 0;
  const void* constant = nullptr;  // host data of a weight / folded constant
  bool host_produced = false;      // a graph input or a CPU step's output
  bool host_read_after = false;    // read by a later CPU step or returned
  bool f16 = false;                // an F32 tensor stored as f16 on the device
  bool graph_input = false;
  // A graph input the caller writes in place (Session::mapped_input): on
  // unified memory its bytes are its own for the whole run, so its contents
  // survive runs and CPU steps read it intact to the end.
  bool written_in_place = false;
  // A graph output the caller reads in place (Session::mapped_output): on
  // unified memory its bytes stay its own from the step making it to the end
  // of the program, where a later segment would otherwise reuse them.
  bool read_in_place = false;
  // A graph input or output in the caller's own memory (Session::import_input,
  // import_output), `caller_bytes` long and aligned for import: the GPU reads
  // or writes it there, outside the arena, on every kind of device.
  void* caller_memory = nullptr;
  uint64_t caller_bytes = 0;
};

struct ProgramStep {
  int step = 0;       // index among the plan's steps (execution order)
  int segment = 0;    // consecutive GPU steps share a segment
  // Runs the f16-storage variants of its shaders: its F32 tensors (inputs,
  // outputs, kernel constants, scratch) are f16 on the device.
  bool fp16 = false;
  // With fp16: runs the f16-arithmetic variants of the shaders that have one
  // (matrix products and convolutions: f16 products, f32 sums over the depth).
  bool f16_math = false;
  std::string label;  // "op #3 (Conv 'conv1')", for errors and profiles
  std::vector<int> inputs;   // tensor index per op input, -1 when omitted
  std::vector<int> outputs;
  std::vector<Dispatch> dispatches;
  bool output_views_input = false;  // PlanContext::output_views_input
  std::vector<Tensor> constants;
  std::vector<PlanContext::Scratch> scratch;
};

struct ProgramStats {
  uint64_t arena_bytes = 0;    // device memory for intermediates (aliased)
  uint64_t weight_bytes = 0;   // device memory for weights
  uint64_t staging_bytes = 0;  // host-visible staging (0 on unified memory)
  int segments = 0;
  int dispatches = 0;
  int views = 0;  // steps that run nothing, their output a view of their input
  int barriers = 0;
  int uploads = 0;
  int downloads = 0;
};

struct ProgramOptions {
  bool profile = false;          // per-step GPU timestamps
  uint64_t max_arena_bytes = 0;  // SessionOptions::max_arena_bytes; 0 = none
};

class Program {
 public:
  static Result<std::unique_ptr<Program>> build(Device& device, const ProgramOptions& options,
                                                const std::vector<ProgramTensor>& tensors,
                                                std::vector<ProgramStep> steps);
  ~Program();

  // Runs one segment. `host(t)` is the host tensor of tensor t: the source of
  // uploads (valid data) and the destination of downloads (allocated).
  Status run_segment(int segment, const std::function<Tensor&(int)>& host);

  // Why graph input `tensor` cannot be written in place, or empty: memory
  // not mapped (a discrete GPU without mapped video memory), stored as f16,
  // or no GPU op reads it.
  std::string input_view_refusal(int tensor) const;
  // Zero-copy input: a Tensor over the mapped device memory graph input
  // `tensor` is read from (built with written_in_place), keeping that memory
  // alive; run_segment copies nothing for an input whose host data is this
  // memory.
  Result<Tensor> input_view(int tensor, const Shape& shape) const;
  // Why graph output `tensor` cannot be read in place, or empty: memory not
  // mapped, stored as f16, or no GPU step makes it.
  std::string output_view_refusal(int tensor) const;
  // Zero-copy output: a Tensor over the mapped device memory a GPU step
  // writes graph output `tensor` to (built with read_in_place), keeping that
  // memory alive; run_segment copies nothing for an output whose host tensor
  // is this memory. Every run overwrites it.
  Result<Tensor> output_view(int tensor, const Shape& shape) const;
  // Whether `p` points into memory a run of this program writes: its mapped
  // arena (a view from input_view or output_view, of this or another
  // tensor), a graph output in the caller's memory, or a graph input in the
  // caller's memory (an upload writes it when the run is given another
  // Tensor for that input). `lost_with_device`: only what a lost device
  // takes with it or a failed run leaves half written, which leaves out the
  // imported inputs (the caller's data, written before the GPU starts).
  bool written_by_runs(const void* p, bool lost_with_device = false) const;
  // Where the GPU reads graph input `tensor` in place: its input_view, or
  // the caller's memory; nullptr when neither (not built with
  // written_in_place or caller_memory, or refused).
  const void* input_address(int tensor) const;
  // Why `tensor` (a graph input or output) cannot live in the caller's
  // memory, or empty: the device cannot import host memory, an output is
  // stored as f16, or no GPU op reads it (an input) or makes it (an output).
  std::string import_refusal(int tensor, bool input) const;
  // Whether the GPU reads or writes `tensor` in the caller's memory (built
  // with caller_memory and imported).
  bool imported(int tensor) const;

  const ProgramStats& stats() const { return stats_; }
  // With profiling on: GPU milliseconds per step of the last run, by the
  // plan's step index (0 for steps not on the GPU).
  const std::vector<std::pair<int, double>>& step_times() const { return step_times_; }

 private:
  struct Region {
    const Buffer* buffer = nullptr;
    uint64_t offset = 0;
    uint64_t bytes = 0;
    bool caller_memory = false;  // a buffer over the caller's memory (import_caller_memory)
  };
  struct Transfer {
    int tensor = 0;
    uint64_t staging_offset = 0;
  };
  struct Segment {
    VkCommandBuffer commands = VK_NULL_HANDLE;
    std::vector<Transfer> uploads;
    std::vector<Transfer> downloads;
    std::vector<int> steps;  // indices into steps_
    uint32_t first_query = 0;
  };

  explicit Program(Device& device) : device_(device) {}
  std::vector<int> alias_views(const std::vector<ProgramTensor>& tensors);
  Status plan_memory(const std::vector<ProgramTensor>& tensors);
  Status upload_weights(const std::vector<ProgramTensor>& tensors);
  Status import_caller_memory(const std::vector<ProgramTensor>& tensors, const std::vector<int>& upload_segment,
                              const std::vector<int>& produced_segment);
  Status record(Segment& segment);
  // The host address of `tensor`'s device bytes: in the mapped arena (unified
  // memory) or the caller's memory; nullptr where it goes through staging.
  uint8_t* host_address(int tensor) const;
  Region region_of(const ProgramStep& step, const TensorArg& arg) const;
  // Why `tensor` cannot be viewed in place in the mapped arena, or empty.
  std::string mapped_view_refusal(int tensor) const;
  // "no GPU op reads it" (an input) or "no GPU op makes it" (an output), or
  // empty: whether graph input or output `tensor` has a GPU side at all.
  std::string gpu_side_refusal(int tensor, bool input) const;
  bool transferred(int tensor, std::vector<Transfer> Segment::*transfers) const;
  static uint64_t device_bytes(DType dtype, int64_t numel, bool f16);
  static void copy_to_device(const Tensor& host, uint8_t* dst, bool f16);
  static void copy_to_host(const uint8_t* src, Tensor& host, bool f16);

  Device& device_;
  uint64_t max_arena_bytes_ = 0;
  bool profile_ = false;
  std::vector<ProgramTensor> tensors_;
  std::vector<ProgramStep> steps_;
  std::vector<Segment> segments_;
  std::vector<Region> tensor_region_;                  // per tensor
  std::vector<std::vector<Region>> constant_region_;   // per step, per kernel constant
  std::vector<std::vector<Region>> scratch_region_;    // per step, per scratch
  // Shared: a caller's view of a graph input or output in it (input_view,
  // output_view) keeps the memory alive past the program.
  std::shared_ptr<Buffer> arena_;
  Buffer weights_;
  Buffer staging_;
  std::vector<std::unique_ptr<Buffer>> imported_;  // caller memory (caller_memory)
  std::vector<int> imported_tensors_;              // the tensor of each, in order
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  VkQueryPool query_pool_ = VK_NULL_HANDLE;
  std::vector<VkCommandBuffer> command_buffers_;
  ProgramStats stats_;
  std::vector<std::pair<int, double>> step_times_;
};

}  // namespace mote::vk
