// The plan a Session builds per set of input shapes, and runs.
//
// Building walks the ops once in order: shapes are inferred; ops whose inputs
// are all known (weights, Shape of a known shape, chains of both) are folded,
// i.e. run once now; the rest become steps. Intermediates get arena offsets
// from the liveness planner, kernels get their prepare() call (weight packing).
// Ops whose output shapes depend on values only known at run time (a Reshape
// fed by computed data) become dynamic steps: their shapes are inferred and
// their outputs allocated as they run.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "mote/model.hpp"
#include "mote/session.hpp"
#include "runtime/core/control_flow.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/core/op_def.hpp"

namespace mote {

class ThreadPool;

// The caller's own memory for a graph input or output (Session::import_input,
// import_output); data is null where there is none.
struct CallerMemory {
  void* data = nullptr;
  uint64_t bytes = 0;
};

// Graph inputs and outputs (by position) the caller writes or reads in the
// GPU's memory (Session::mapped_input, mapped_output): a plan keeps their
// device bytes to themselves through a run, which the others share. And
// those the GPU reads or writes in the caller's memory instead of its own.
struct InPlaceIo {
  std::vector<bool> inputs, outputs;
  std::vector<CallerMemory> input_memory, output_memory;
};

class ExecutionPlan {
 public:
  // `options.backend` is already resolved: kCpu, kReference or kVulkan.
  static Result<std::unique_ptr<ExecutionPlan>> build(const Model& model, const std::vector<Shape>& input_shapes,
                                                      const SessionOptions& options, ThreadPool& pool,
                                                      const InPlaceIo& in_place = {});
  // The plan of `graph`, the model's main graph or a control-flow body in it.
  static Result<std::unique_ptr<ExecutionPlan>> build(const Model& model, const fb::GraphT& graph,
                                                      const std::vector<Shape>& input_shapes,
                                                      const SessionOptions& options, ThreadPool& pool,
                                                      const InPlaceIo& in_place = {});
  ~ExecutionPlan();

  // Inputs in the model's input order, already checked against the shapes
  // this plan was built for.
  Result<std::vector<Tensor>> run(const std::vector<Tensor>& inputs, ThreadPool& pool);

  const std::vector<Shape>& input_shapes() const { return input_shapes_; }
  // Output `output`'s dtype and shape (by position), or kUnsupported where
  // only a run knows the shape.
  Result<TensorInfo> output_info(size_t output) const;
  const PlanStats& stats() const { return stats_; }
  // The session records in the stats a GPU fault it moved to the CPU after.
  void note_gpu_fault(const std::string& what) { stats_.gpu_fault = what; }
  std::vector<OpPlacement> placement() const;
  // Whether input `input` (by position) can be written in place:
  // kUnsupported with the reason where not (a CPU plan, staging, f16, no GPU
  // op reads it).
  Status can_map_input(size_t input) const;
  // Its view, for a plan built with in_place.inputs for it.
  Result<Tensor> mapped_input(size_t input) const;
  // Whether output `output` (by position) can be read in place: kUnsupported
  // with the reason where not (a CPU plan, staging, f16, made on the CPU).
  Status can_map_output(size_t output) const;
  // Its view, for a plan built with in_place.outputs for it: run() writes and
  // returns that output there.
  Result<Tensor> mapped_output(size_t output) const;
  // Whether input (or output) `index` can live in the caller's memory:
  // kUnsupported with the reason where not (a CPU plan, a device without
  // VK_EXT_external_memory_host, an output stored as f16, no GPU op reads
  // or makes it).
  Status can_import(size_t index, bool input) const;
  // Whether this plan's GPU reads (or writes) it in the caller's memory.
  bool imported(size_t index, bool input) const;
  // The alignment (of address and size) the caller's memory needs; 0 where
  // this plan cannot import any (a CPU plan, no extension).
  uint64_t import_alignment() const;
  // The first of `inputs` whose data lies in memory this plan's runs write
  // (a mapped_input view, a mapped_output view or an output in the caller's
  // memory passed back as an input), or -1: after a lost device those
  // contents are gone or half overwritten by the failed run.
  int input_in_device_memory(const std::vector<Tensor>& inputs) const;
  const std::vector<OpTime>& profile() const { return profile_; }

 private:
  struct GpuState;  // execution_plan_gpu.cpp; keeps Vulkan types out of here
  enum class Storage { kUnknown, kConstant, kInput, kArena, kOutput, kDynamic };
  struct Slot {
    Storage storage = Storage::kUnknown;
    DType dtype = DType::F32;
    Shape shape;
    bool shape_known = false;
    Tensor value;  // data view; owns it for folded constants, outputs, dynamics
    // A graph output's storage from the last run, reused by the next one when
    // the caller has let go of it (output_storage).
    Tensor last_output;
    // A graph output's mapped_output view, or a Tensor over the caller's
    // memory (import_output): each run writes the output there (the GPU, in
    // place) and returns it instead of a copy.
    Tensor mapped_output;
    uint64_t arena_offset = 0;
    bool blocked = false;  // channel-blocked (layout.hpp); arena slots of CPU plans only
  };
  struct Step {
    int op_index = 0;
    const CpuKernel* kernel = nullptr;
    bool dynamic = false;
    std::unique_ptr<KernelState> state;
    int segment = -1;         // GPU segment, or -1 for a CPU step
    bool fp16 = false;        // a GPU step storing its float tensors as f16
    bool f16_math = false;    // ... and running some shaders' f16-arithmetic variants
    std::string cpu_reason;   // why a Vulkan plan runs this step on the CPU
    std::vector<GpuGemm> gemms;            // a GPU step's matrix products (placement)
    std::unique_ptr<ControlFlow> control;  // If, Loop, Scan: runs their bodies
  };

  ExecutionPlan(const Model& model, const fb::GraphT& graph, const SessionOptions& options);
  Status init_slots(const std::vector<Shape>& input_shapes);
  Status output_storage(Slot& s);
  Status plan_op(int op_index, ThreadPool& pool);
  Status infer_shapes(const fb::OpT& op, bool use_values, std::vector<TensorInfo>& outputs) const;
  Status run_kernel(const fb::OpT& op, const CpuKernel& kernel, ThreadPool& pool, KernelState* state,
                    std::unique_ptr<KernelState>* prepare_into);
  // Marks the slots kept channel-blocked (layout.hpp); before allocate_arena.
  void choose_layouts();
  // Bytes of a slot's storage: its elements, or its blocks when blocked.
  uint64_t slot_bytes(const Slot& s) const;
  // Sets ctx's blocked bits from the slots of `op`.
  void mark_blocked(const fb::OpT& op, KernelContext& ctx) const;
  Status allocate_arena();
  // Whether `op`'s output bytes are its first input's (viewed_input).
  bool keeps_input_bytes(const fb::OpT& op) const;
  // For a step whose output can be a view of its input (the Reshape family
  // on the CPU, both in the arena): that input's slot; else -1.
  int viewed_input(const Step& step, const std::vector<int>& request_of_slot) const;
  // Where a slot sits inside a Concat's output when its producer writes it
  // there in place (concat_slabs); concat_output -1 for every other slot.
  struct ConcatSlab {
    int concat_output = -1;
    uint64_t offset = 0;  // bytes from the start of the Concat's output
  };
  std::vector<ConcatSlab> concat_slabs() const;
  // SessionOptions::max_arena_bytes: an error naming `bytes` and what they
  // are for when they pass the limit, checked before anything is allocated.
  Status check_memory_limit(uint64_t bytes, const std::string& what) const;
  Status prepare_kernels(ThreadPool& pool);
  // Views of `op`'s tensors as prepare time knows them: constants with their
  // data, every other tensor with shape and dtype only (raw() == nullptr).
  // `views` owns them; nullptr stands for an omitted input.
  void prepare_time_views(const fb::OpT& op, std::vector<Tensor>& views, std::vector<const Tensor*>& inputs,
                          std::vector<Tensor*>& outputs) const;
  Status run_dynamic_step(Step& step, ThreadPool& pool);
  Status run_control_step(Step& step, ThreadPool& pool);
  const CpuKernel* kernel_for(fb::OpType type) const;
  std::string op_label(int op_index) const;
  std::string op_short_label(int op_index) const;
  // GPU side (execution_plan_gpu.cpp): choose each step's device, then build
  // the Vulkan program for the GPU steps.
  Status place_steps();
  Status build_gpu_program();
  Status run_gpu_segment(int segment);
  // Slots whose only readers and writer are GPU steps need no host memory.
  bool device_only(int slot) const;
  // The data run() reads input `k` from: the caller's, or a copy of it when
  // it lies in memory the run writes before reading it (a mapped_input view
  // of another input, which that input's upload may overwrite first; an
  // output's mapped view or caller memory, a recurrent state).
  const void* input_source(size_t k, const Tensor& input);

  const Model& model_;
  const fb::GraphT& graph_;
  SessionOptions options_;
  Backend backend_;
  InPlaceIo in_place_;  // build()'s
  std::unique_ptr<GpuState> gpu_;
  std::vector<OpTime> profile_;
  std::vector<Shape> input_shapes_;
  std::vector<Slot> slots_;
  std::vector<Step> steps_;
  std::shared_ptr<void> arena_;
  uint64_t planned_host_bytes_ = 0;   // the arena plus the outputs of a run
  uint64_t dynamic_bytes_ = 0;        // run-time-shaped tensors of the current run
  PlanStats stats_;
  int64_t channel_block_ = 0;  // the block of the blocked slots; 0 when none is
};

}  // namespace mote
