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

#include <memory>
#include <vector>

#include "mote/model.hpp"
#include "mote/session.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/core/op_def.hpp"

namespace mote {

class ThreadPool;

class ExecutionPlan {
 public:
  static Result<std::unique_ptr<ExecutionPlan>> build(const Model& model, const std::vector<Shape>& input_shapes,
                                                      Backend backend, ThreadPool& pool);
  ~ExecutionPlan();

  // Inputs in the model's input order, already checked against the shapes
  // this plan was built for.
  Result<std::vector<Tensor>> run(const std::vector<Tensor>& inputs, ThreadPool& pool);

  const std::vector<Shape>& input_shapes() const { return input_shapes_; }
  const PlanStats& stats() const { return stats_; }

 private:
  enum class Storage { kUnknown, kConstant, kInput, kArena, kOutput, kDynamic };
  struct Slot {
    Storage storage = Storage::kUnknown;
    DType dtype = DType::F32;
    Shape shape;
    bool shape_known = false;
    Tensor value;  // data view; owns it for folded constants, outputs, dynamics
    uint64_t arena_offset = 0;
  };
  struct Step {
    int op_index = 0;
    const CpuKernel* kernel = nullptr;
    bool dynamic = false;
    std::unique_ptr<KernelState> state;
  };

  ExecutionPlan(const Model& model, Backend backend) : model_(model), backend_(backend) {}
  Status init_slots(const std::vector<Shape>& input_shapes);
  Status plan_op(int op_index, ThreadPool& pool);
  Status infer_shapes(const fb::OpT& op, bool use_values, std::vector<TensorInfo>& outputs) const;
  Status run_kernel(const fb::OpT& op, const CpuKernel& kernel, ThreadPool& pool, KernelState* state,
                    std::unique_ptr<KernelState>* prepare_into);
  Status allocate_arena();
  Status prepare_kernels(ThreadPool& pool);
  Status run_dynamic_step(Step& step, ThreadPool& pool);
  const CpuKernel* kernel_for(fb::OpType type) const;
  std::string op_label(int op_index) const;

  const Model& model_;
  Backend backend_;
  std::vector<Shape> input_shapes_;
  std::vector<Slot> slots_;
  std::vector<Step> steps_;
  std::shared_ptr<void> arena_;
  PlanStats stats_;
};

}  // namespace mote
