#include "runtime/core/execution_plan.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "runtime/core/half.hpp"
#include "runtime/core/layout.hpp"
#include "runtime/core/memory_planner.hpp"
#include "runtime/core/registry.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/transpose.hpp"

namespace mote {


namespace {
// Owned, zeroed storage for a tensor, or an out-of-memory error.
Status allocate(Tensor& tensor, DType dtype, const Shape& shape) {
  tensor = Tensor::zeros(dtype, shape);
  if (!tensor.raw()) {
    return Status(StatusCode::kOutOfMemory, "cannot allocate " + std::to_string(tensor.bytes()) + " bytes for a " +
                                                shape_to_string(shape) + " tensor");
  }
  return {};
}

// Ops whose CPU kernels move elements by dtype_size (or read only shapes), so
// they run f64 tensors as they run f32 ones. Every other CPU kernel computes
// in f32 and would read f64 bytes as floats: f64 math is for the reference
// kernels (gradient checks run in f64 there), and plan_op refuses it elsewhere.
bool cpu_kernel_moves_f64(fb::OpType type) {
  switch (type) {
    case fb::OpType::Cast:
    case fb::OpType::Shape:
    case fb::OpType::Size:
    case fb::OpType::Range:
    case fb::OpType::ConstantOfShape:
    case fb::OpType::Reshape:
    case fb::OpType::Flatten:
    case fb::OpType::Squeeze:
    case fb::OpType::Unsqueeze:
    case fb::OpType::Identity:
    case fb::OpType::Transpose:
    case fb::OpType::Concat:
    case fb::OpType::Split:
    case fb::OpType::Slice:
    case fb::OpType::Gather:
    case fb::OpType::Expand:
    case fb::OpType::Tile:
    case fb::OpType::Pad:
    case fb::OpType::DepthToSpace:
    case fb::OpType::SpaceToDepth:
    case fb::OpType::Where:
    case fb::OpType::Resize: return true;  // nearest mode; linear refuses non-f32 itself
    default: return false;
  }
}

// The Reshape family: output bytes identical to the input's.
bool keeps_input_bytes(fb::OpType type) {
  switch (type) {
    case fb::OpType::Reshape:
    case fb::OpType::Flatten:
    case fb::OpType::Squeeze:
    case fb::OpType::Unsqueeze:
    case fb::OpType::Identity: return true;
    default: return false;
  }
}
}  // namespace

std::string ExecutionPlan::op_short_label(int op_index) const {
  const fb::OpT& op = *graph_.ops[static_cast<size_t>(op_index)];
  std::string s = op_type_name(op.type);
  if (!op.name.empty()) s += " '" + op.name + "'";
  return s;
}

std::string ExecutionPlan::op_label(int op_index) const {
  return "op #" + std::to_string(op_index) + " (" + op_short_label(op_index) + ")";
}

const CpuKernel* ExecutionPlan::kernel_for(fb::OpType type) const {
  const CpuKernel* k = backend_ == Backend::kReference ? find_reference_kernel(type) : find_cpu_kernel(type);
  // An op without an optimised kernel still runs: the reference one is correct.
  if (!k) k = find_reference_kernel(type);
  return k;
}

Result<std::unique_ptr<ExecutionPlan>> ExecutionPlan::build(const Model& model,
                                                            const std::vector<Shape>& input_shapes,
                                                            const SessionOptions& options, ThreadPool& pool,
                                                            const InPlaceIo& in_place) {
  return build(model, model.graph(), input_shapes, options, pool, in_place);
}

Result<std::unique_ptr<ExecutionPlan>> ExecutionPlan::build(const Model& model, const fb::GraphT& graph,
                                                            const std::vector<Shape>& input_shapes,
                                                            const SessionOptions& options, ThreadPool& pool,
                                                            const InPlaceIo& in_place) {
  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<ExecutionPlan> plan(new ExecutionPlan(model, graph, options));
  plan->in_place_ = in_place;
  plan->stats_.backend = options.backend;
  MOTE_RETURN_IF_ERROR(plan->init_slots(input_shapes));
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    MOTE_RETURN_IF_ERROR(plan->plan_op(static_cast<int>(i), pool));
  }
  if (options.backend == Backend::kVulkan) MOTE_RETURN_IF_ERROR(plan->place_steps());
  plan->choose_layouts();
  MOTE_RETURN_IF_ERROR(plan->allocate_arena());
  MOTE_RETURN_IF_ERROR(plan->prepare_kernels(pool));
  if (options.backend == Backend::kVulkan) MOTE_RETURN_IF_ERROR(plan->build_gpu_program());
  for (const Step& step : plan->steps_) (step.segment >= 0 ? plan->stats_.ops_gpu : plan->stats_.ops_cpu)++;
  plan->stats_.ops_total = static_cast<int>(graph.ops.size());
  plan->stats_.prepare_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return plan;
}

Status ExecutionPlan::init_slots(const std::vector<Shape>& input_shapes) {
  const fb::GraphT& g = graph_;
  input_shapes_ = input_shapes;
  slots_.resize(g.tensors.size());
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const fb::TensorT& t = *g.tensors[i];
    Slot& s = slots_[i];
    s.dtype = t.dtype;
    s.shape = t.shape;
    const void* data = model_.tensor_data(graph_, static_cast<int>(i));
    if (!data) continue;
    s.storage = Storage::kConstant;
    s.shape_known = true;
    if (t.dtype == DType::F16) {
      // CPU kernels compute in f32: widen f16 weights once here.
      s.dtype = DType::F32;
      MOTE_RETURN_IF_ERROR(allocate(s.value, DType::F32, t.shape));
      const auto* src = static_cast<const uint16_t*>(data);
      for (int64_t k = 0; k < s.value.numel(); ++k) s.value.data<float>()[k] = half_to_float(src[k]);
      stats_.folded_bytes += s.value.bytes();
    } else {
      s.value = Tensor::borrow(t.dtype, t.shape, data);
    }
  }
  for (size_t k = 0; k < g.inputs.size(); ++k) {
    Slot& s = slots_[static_cast<size_t>(g.inputs[k])];
    s.storage = Storage::kInput;
    s.shape = input_shapes[k];
    s.shape_known = true;
    s.value = Tensor::borrow(s.dtype, s.shape, static_cast<const void*>(nullptr));
  }
  return {};
}

Status ExecutionPlan::infer_shapes(const fb::OpT& op, bool use_values, std::vector<TensorInfo>& outputs) const {
  const OpDef* def = find_op_def(op.type);
  ShapeContext ctx{op, {}, {}, {}};
  for (int32_t index : op.inputs) {
    TensorInfo info;
    bool present = index >= 0;
    if (present) {
      const Slot& s = slots_[static_cast<size_t>(index)];
      info.dtype = s.dtype;
      info.shape = s.shape;
      bool has_value = s.storage == Storage::kConstant || (use_values && s.value.raw());
      if (has_value) info.value = &s.value;
    }
    ctx.inputs.push_back(std::move(info));
    ctx.present.push_back(present);
  }
  MOTE_RETURN_IF_ERROR(def->infer(ctx));
  if (ctx.outputs.size() < op.outputs.size()) {
    return internal_error("shape function produced " + std::to_string(ctx.outputs.size()) + " outputs, the op has " +
                          std::to_string(op.outputs.size()));
  }
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    if (shape_numel(ctx.outputs[i].shape) < 0) {
      return invalid_model("output " + std::to_string(i) + " has invalid shape " +
                           shape_to_string(ctx.outputs[i].shape));
    }
  }
  outputs = std::move(ctx.outputs);
  return {};
}

Status ExecutionPlan::plan_op(int op_index, ThreadPool& pool) {
  const fb::OpT& op = *graph_.ops[static_cast<size_t>(op_index)];
  if (is_control_flow(op.type)) {
    // Runs its bodies each time; output shapes are known only then.
    auto control = ControlFlow::create(model_, graph_, op, options_);
    if (!control.ok()) return control.status().with_context(op_label(op_index));
    Step step;
    step.op_index = op_index;
    step.dynamic = true;
    step.control = std::move(*control);
    for (int32_t index : op.outputs) slots_[static_cast<size_t>(index)].storage = Storage::kDynamic;
    ++stats_.ops_dynamic;
    steps_.push_back(std::move(step));
    return {};
  }
  const OpDef* def = find_op_def(op.type);
  const CpuKernel* kernel = kernel_for(op.type);
  if (!def || !kernel) return unsupported(op_label(op_index) + ": no CPU kernel for this op type");
  if (backend_ != Backend::kReference && !cpu_kernel_moves_f64(op.type)) {
    // Input dtypes as planned so far, output dtypes as the model declares them.
    const fb::GraphT& g = graph_;
    bool f64 = false;
    for (int32_t index : op.inputs) f64 = f64 || (index >= 0 && slots_[static_cast<size_t>(index)].dtype == DType::F64);
    for (int32_t index : op.outputs) f64 = f64 || g.tensors[static_cast<size_t>(index)]->dtype == DType::F64;
    if (f64) {
      return unsupported(op_label(op_index) + ": f64 tensors run only on the reference backend; the " +
                         backend_name(backend_) + " backend's kernel computes in f32");
    }
  }

  bool shapes_known = true;
  bool all_constant = true;
  for (size_t j = 0; j < op.inputs.size(); ++j) {
    int32_t index = op.inputs[j];
    if (index < 0) continue;
    const Slot& s = slots_[static_cast<size_t>(index)];
    if (!s.shape_known) shapes_known = false;
    bool constant = s.storage == Storage::kConstant;
    if (!constant) all_constant = false;
    // value_inputs is a 32-bit mask: Concat's 90th input is never one.
    if (j < 32 && (def->value_inputs >> j & 1u) && !constant) shapes_known = false;
  }
  Step step;
  step.op_index = op_index;
  step.kernel = kernel;
  if (!shapes_known) {
    step.dynamic = true;
    for (int32_t index : op.outputs) slots_[static_cast<size_t>(index)].storage = Storage::kDynamic;
    ++stats_.ops_dynamic;
    steps_.push_back(std::move(step));
    return {};
  }

  std::vector<TensorInfo> infos;
  Status st = infer_shapes(op, /*use_values=*/false, infos);
  if (!st.ok()) return st.with_context(op_label(op_index));
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    Slot& s = slots_[static_cast<size_t>(op.outputs[i])];
    s.dtype = infos[i].dtype;
    s.shape = infos[i].shape;
    s.shape_known = true;
    // A data-less view until folding (below) or allocate_arena gives it
    // storage: a Shape or Size op folded later in this walk reads the shape
    // from it, as it does from a graph input's view.
    s.value = Tensor::borrow(s.dtype, s.shape, static_cast<const void*>(nullptr));
  }

  // Shape and Size read only their input's shape, which is known here.
  bool shape_only = op.type == fb::OpType::Shape || op.type == fb::OpType::Size;
  if (all_constant || shape_only) {
    for (int32_t index : op.outputs) {
      Slot& s = slots_[static_cast<size_t>(index)];
      s.storage = Storage::kConstant;
      MOTE_RETURN_IF_ERROR(allocate(s.value, s.dtype, s.shape));
      stats_.folded_bytes += s.value.bytes();
    }
    ++stats_.ops_folded;
    std::unique_ptr<KernelState> state;
    Status run_status = run_kernel(op, *kernel, pool, nullptr, &state);
    if (!run_status.ok()) return run_status.with_context(op_label(op_index));
    return {};
  }
  for (int32_t index : op.outputs) slots_[static_cast<size_t>(index)].storage = Storage::kArena;
  steps_.push_back(std::move(step));
  return {};
}

// The Reshape family, and on the CPU kernels (every backend but the
// reference one, which keeps each tensor apart) a Transpose that moves only
// axes of size 1, keep their input's bytes as they are.
bool ExecutionPlan::keeps_input_bytes(const fb::OpT& op) const {
  if (mote::keeps_input_bytes(op.type)) return true;
  if (op.type != fb::OpType::Transpose || backend_ == Backend::kReference || op.inputs.empty() || op.inputs[0] < 0) {
    return false;
  }
  const Shape& x = slots_[static_cast<size_t>(op.inputs[0])].shape;
  auto perm = transpose_perm(op, static_cast<int>(x.size()));
  return perm.ok() && transpose_keeps_order(*perm, x);
}

// Reshape, Flatten, Squeeze, Unsqueeze and Identity keep their input's bytes
// as they are, and so does a Transpose of axes of size 1 (torch's
// batch-first attention transposes [1, S, E] to [S, 1, E] and back: 0.003 to
// 0.013 ms each in a 4-layer encoder), so a CPU step of one whose input and
// output both live in the arena makes its output a view: the output shares
// the input's request and bytes, and the kernel, handed one buffer twice,
// copies nothing (a copy of 128 x 1024 floats took 0.045 ms, as long as an
// Add). Graph inputs and outputs, constants and tensors the GPU holds keep
// their own storage.
int ExecutionPlan::viewed_input(const Step& step, const std::vector<int>& request_of_slot) const {
  if (step.dynamic || step.segment >= 0 || step.control) return -1;
  const fb::OpT& op = *graph_.ops[static_cast<size_t>(step.op_index)];
  if (!keeps_input_bytes(op)) return -1;
  if (op.inputs.empty() || op.outputs.size() != 1 || op.inputs[0] < 0) return -1;
  const int in = op.inputs[0], out = op.outputs[0];
  if (request_of_slot[static_cast<size_t>(in)] < 0) return -1;
  const Slot& x = slots_[static_cast<size_t>(in)];
  const Slot& y = slots_[static_cast<size_t>(out)];
  if (x.dtype != y.dtype || shape_numel(x.shape) != shape_numel(y.shape)) return -1;
  return in;
}

// A CPU Concat whose output is in the arena with only ones before its axis
// (batch 1 along channels: SqueezeNet's Fire modules, ShuffleNetV2's units)
// holds each input as one contiguous slab of its output. Inputs written by
// earlier CPU steps into the arena are placed at their slabs: their
// producers write straight into the Concat's output, and the Concat kernel,
// finding them in place, copies nothing. Not placed, and copied as before:
// an input seen twice in one Concat or already in another, one that is
// itself a Concat's output holding slabs or a view (the Reshape family), one
// from a GPU segment, and one whose slab does not start on the arena's
// alignment (kernels may assume aligned tensors).
std::vector<ExecutionPlan::ConcatSlab> ExecutionPlan::concat_slabs() const {
  std::vector<ConcatSlab> slabs(slots_.size());
  // The reference backend keeps every tensor apart: tests compare the CPU
  // backend with it, and a planning error must not show up in both.
  if (backend_ == Backend::kReference) return slabs;
  std::vector<int> producer(slots_.size(), -1);
  std::vector<bool> holds_slabs(slots_.size(), false);
  auto cpu_step = [](const Step& step) { return !step.dynamic && step.segment < 0 && !step.control; };
  for (size_t k = 0; k < steps_.size(); ++k) {
    const Step& step = steps_[k];
    const fb::OpT& op = *graph_.ops[static_cast<size_t>(step.op_index)];
    for (int32_t index : op.outputs) {
      if (index >= 0) producer[static_cast<size_t>(index)] = static_cast<int>(k);
    }
    if (op.type != fb::OpType::Concat || !cpu_step(step) || op.outputs.size() != 1) continue;
    const int out = op.outputs[0];
    if (out < 0) continue;
    const Slot& y = slots_[static_cast<size_t>(out)];
    if (y.storage != Storage::kArena || device_only(out)) continue;
    auto axis = normalize_axis(attrs<fb::AxisAttrsT>(op).axis, static_cast<int>(y.shape.size()));
    if (!axis.ok()) continue;
    bool ones_before_axis = true;
    for (int d = 0; d < *axis; ++d) ones_before_axis = ones_before_axis && y.shape[static_cast<size_t>(d)] == 1;
    if (!ones_before_axis) continue;
    uint64_t offset = 0;
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const int in = op.inputs[i];
      if (in < 0) continue;
      const Slot& x = slots_[static_cast<size_t>(in)];
      const uint64_t bytes = static_cast<uint64_t>(shape_numel(x.shape)) * dtype_size(x.dtype);
      const int from = producer[static_cast<size_t>(in)];
      const bool placed =
          x.storage == Storage::kArena && !device_only(in) && x.dtype == y.dtype && bytes > 0 && from >= 0 &&
          cpu_step(steps_[static_cast<size_t>(from)]) &&
          !keeps_input_bytes(*graph_.ops[static_cast<size_t>(steps_[static_cast<size_t>(from)].op_index)]) &&
          slabs[static_cast<size_t>(in)].concat_output < 0 && !holds_slabs[static_cast<size_t>(in)] &&
          offset % kWeightAlignment == 0;
      if (placed) {
        slabs[static_cast<size_t>(in)] = {out, offset};
        holds_slabs[static_cast<size_t>(out)] = true;
      }
      offset += bytes;
    }
  }
  return slabs;
}

void ExecutionPlan::choose_layouts() {
  const int64_t block = channel_block();
  if (backend_ != Backend::kCpu || !options_.channel_blocked_layout || block <= 1) return;
  const auto& ops = graph_.ops;
  // Control-flow bodies read the outer graph's tensors by name, past the
  // steps' inputs: such plans keep everything planar.
  for (const Step& step : steps_) {
    if (step.control) return;
  }
  std::vector<bool> graph_output(slots_.size(), false);
  for (int32_t index : graph_.outputs) graph_output[static_cast<size_t>(index)] = true;
  std::vector<BlockedSupport> support(steps_.size());
  std::vector<Tensor> views;
  for (size_t k = 0; k < steps_.size(); ++k) {
    const Step& step = steps_[k];
    if (step.dynamic || step.segment >= 0 || !step.kernel->blocked) continue;
    const fb::OpT& op = *ops[static_cast<size_t>(step.op_index)];
    KernelContext ctx{op, {}, {}, nullptr, nullptr};
    prepare_time_views(op, views, ctx.inputs, ctx.outputs);
    support[k] = step.kernel->blocked(ctx);
  }
  // Candidates: float 4-D intermediates whose producer writes blocks...
  std::vector<bool> blocked(slots_.size(), false);
  for (size_t k = 0; k < steps_.size(); ++k) {
    const fb::OpT& op = *ops[static_cast<size_t>(steps_[k].op_index)];
    if (!support[k].output || op.outputs.empty() || op.outputs[0] < 0) continue;
    const size_t out = static_cast<size_t>(op.outputs[0]);
    const Slot& s = slots_[out];
    blocked[out] = s.storage == Storage::kArena && s.dtype == DType::F32 && s.shape.size() == 4 &&
                   shape_numel(s.shape) > 0 && !graph_output[out];
  }
  // ...and that every reader takes as blocks.
  for (size_t k = 0; k < steps_.size(); ++k) {
    const fb::OpT& op = *ops[static_cast<size_t>(steps_[k].op_index)];
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const int32_t index = op.inputs[i];
      if (index >= 0 && (i >= 64 || (support[k].inputs >> i & 1) == 0)) blocked[static_cast<size_t>(index)] = false;
    }
  }
  // Inputs tied to an output's layout: where the two differ, both go planar
  // (or only the input, for only_with_output; only the output, for
  // output_only_with), which can break another tie; repeat until none does.
  const auto settle_ties = [&] {
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t k = 0; k < steps_.size(); ++k) {
        const fb::OpT& op = *ops[static_cast<size_t>(steps_[k].op_index)];
        const BlockedSupport& sup = support[k];
        const uint64_t tied = sup.same_as_output | sup.only_with_output | sup.output_only_with;
        if (!tied || op.outputs.empty() || op.outputs[0] < 0) continue;
        const size_t out = static_cast<size_t>(op.outputs[0]);
        for (size_t i = 0; i < op.inputs.size() && i < 64; ++i) {
          if (op.inputs[i] < 0) continue;
          const size_t in = static_cast<size_t>(op.inputs[i]);
          if ((sup.same_as_output >> i & 1) != 0 && blocked[in] != blocked[out]) {
            blocked[in] = blocked[out] = false;
            changed = true;
          } else if ((sup.only_with_output >> i & 1) != 0 && blocked[in] && !blocked[out]) {
            blocked[in] = false;
            changed = true;
          } else if ((sup.output_only_with >> i & 1) != 0 && blocked[out] && !blocked[in]) {
            blocked[out] = false;
            changed = true;
          }
        }
      }
    }
  };
  settle_ties();
  // Blocks that gain nothing: every reader takes them no faster than NCHW
  // (indifferent: GlobalAveragePool) and the producer writes them from
  // planar inputs only. Those stay planar, so the producer writes NCHW: for
  // a 1x1 layer the GEMM, which beats pointwise_blocked from an NCHW input
  // (SqueezeNet's classifier, 512 -> 1000 channels on 13x13, per op in the
  // network: 1.72 -> 1.46 ms at 1 thread, 0.93 -> 0.85 at 2). Only that case
  // was measured; the rule takes any producer (a depthwise layer on narrow
  // NCHW planes feeding only a pool would write NCHW too), and no network
  // here has another.
  std::vector<bool> gains(slots_.size(), false);
  for (size_t k = 0; k < steps_.size(); ++k) {
    const fb::OpT& op = *ops[static_cast<size_t>(steps_[k].op_index)];
    for (size_t i = 0; i < op.inputs.size() && i < 64; ++i) {
      if (op.inputs[i] >= 0 && (support[k].indifferent >> i & 1) == 0)
        gains[static_cast<size_t>(op.inputs[i])] = true;
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 0; k < steps_.size(); ++k) {
      const fb::OpT& op = *ops[static_cast<size_t>(steps_[k].op_index)];
      if (op.outputs.empty() || op.outputs[0] < 0) continue;
      const size_t out = static_cast<size_t>(op.outputs[0]);
      if (!blocked[out] || gains[out]) continue;
      const bool from_blocks = std::any_of(op.inputs.begin(), op.inputs.end(),
                                           [&](int32_t in) { return in >= 0 && blocked[static_cast<size_t>(in)]; });
      if (from_blocks) continue;
      blocked[out] = false;
      changed = true;
    }
    if (changed) settle_ties();
  }
  for (size_t i = 0; i < slots_.size(); ++i) {
    slots_[i].blocked = blocked[i];
    stats_.blocked_tensors += blocked[i] ? 1 : 0;
  }
  if (stats_.blocked_tensors > 0) channel_block_ = block;
}

uint64_t ExecutionPlan::slot_bytes(const Slot& s) const {
  if (s.blocked) return blocked_bytes(s.shape, channel_block_);
  return static_cast<uint64_t>(shape_numel(s.shape)) * dtype_size(s.dtype);
}

void ExecutionPlan::mark_blocked(const fb::OpT& op, KernelContext& ctx) const {
  ctx.channel_block = channel_block_;
  for (size_t i = 0; i < op.inputs.size() && i < 64; ++i) {
    if (op.inputs[i] >= 0 && slots_[static_cast<size_t>(op.inputs[i])].blocked)
      ctx.blocked_inputs |= uint64_t{1} << i;
  }
  for (size_t i = 0; i < op.outputs.size() && i < 64; ++i) {
    if (op.outputs[i] >= 0 && slots_[static_cast<size_t>(op.outputs[i])].blocked) {
      ctx.blocked_outputs |= uint64_t{1} << i;
    }
  }
}

Status ExecutionPlan::allocate_arena() {
  // Graph outputs are handed to the caller, so they live outside the arena.
  for (int32_t index : graph_.outputs) {
    Slot& s = slots_[static_cast<size_t>(index)];
    if (s.storage == Storage::kArena) s.storage = Storage::kOutput;
  }
  std::vector<LifetimeRequest> requests;
  std::vector<int> request_of_slot(slots_.size(), -1);
  std::vector<uint64_t> offset_in_request(slots_.size(), 0);
  const std::vector<ConcatSlab> slabs = concat_slabs();
  const auto& ops = graph_.ops;
  for (size_t k = 0; k < steps_.size(); ++k) {
    const fb::OpT& op = *ops[static_cast<size_t>(steps_[k].op_index)];
    int step = static_cast<int>(k);
    for (int32_t index : op.inputs) {
      if (index < 0 || request_of_slot[static_cast<size_t>(index)] < 0) continue;
      requests[static_cast<size_t>(request_of_slot[static_cast<size_t>(index)])].last_step = step;
    }
    const int view_of = viewed_input(steps_[k], request_of_slot);
    for (int32_t index : op.outputs) {
      if (slots_[static_cast<size_t>(index)].storage != Storage::kArena || device_only(index)) continue;
      if (view_of >= 0) {
        // The same request: its lifetime runs on to the view's last reader.
        request_of_slot[static_cast<size_t>(index)] = request_of_slot[static_cast<size_t>(view_of)];
        offset_in_request[static_cast<size_t>(index)] = offset_in_request[static_cast<size_t>(view_of)];
        continue;
      }
      // A Concat's output is requested when its first slab is written, and
      // lives from then on.
      if (request_of_slot[static_cast<size_t>(index)] >= 0) continue;
      if (const ConcatSlab& slab = slabs[static_cast<size_t>(index)]; slab.concat_output >= 0) {
        int& host = request_of_slot[static_cast<size_t>(slab.concat_output)];
        if (host < 0) {
          host = static_cast<int>(requests.size());
          const Slot& y = slots_[static_cast<size_t>(slab.concat_output)];
          requests.push_back({static_cast<uint64_t>(shape_numel(y.shape)) * dtype_size(y.dtype), step, step});
        }
        request_of_slot[static_cast<size_t>(index)] = host;
        offset_in_request[static_cast<size_t>(index)] = slab.offset;
        continue;
      }
      request_of_slot[static_cast<size_t>(index)] = static_cast<int>(requests.size());
      requests.push_back({slot_bytes(slots_[static_cast<size_t>(index)]), step, step});
    }
  }
  MemoryPlan mp = plan_memory(requests, kWeightAlignment);
  stats_.arena_bytes = mp.arena_bytes;
  stats_.unshared_bytes = mp.unshared_bytes;
  uint64_t output_bytes = 0;
  for (const Slot& s : slots_) {
    if (s.storage == Storage::kOutput) output_bytes += static_cast<uint64_t>(shape_numel(s.shape)) * dtype_size(s.dtype);
  }
  planned_host_bytes_ = mp.arena_bytes + output_bytes;
  MOTE_RETURN_IF_ERROR(check_memory_limit(planned_host_bytes_, "the arena (" + std::to_string(mp.arena_bytes) +
                                                                   " bytes) and the outputs (" +
                                                                   std::to_string(output_bytes) + " bytes)"));
  if (mp.arena_bytes) {
    void* p = std::aligned_alloc(kWeightAlignment, mp.arena_bytes);
    if (!p) return Status(StatusCode::kOutOfMemory, "cannot allocate an arena of " + std::to_string(mp.arena_bytes) + " bytes");
    arena_ = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
  }
  for (size_t i = 0; i < slots_.size(); ++i) {
    const int r = request_of_slot[i];
    if (r < 0) continue;
    Slot& s = slots_[i];
    s.arena_offset = mp.offsets[static_cast<size_t>(r)] + offset_in_request[i];
    s.value = Tensor::borrow(s.dtype, s.shape, static_cast<uint8_t*>(arena_.get()) + s.arena_offset);
  }
  for (Slot& s : slots_) {
    if (s.storage == Storage::kOutput) s.value = Tensor::borrow(s.dtype, s.shape, static_cast<const void*>(nullptr));
  }
  return {};
}

Status ExecutionPlan::check_memory_limit(uint64_t bytes, const std::string& what) const {
  const uint64_t limit = options_.max_arena_bytes;
  if (limit == 0 || bytes <= limit) return {};
  std::string shapes;
  for (const Shape& s : input_shapes_) shapes += (shapes.empty() ? "" : ", ") + shape_to_string(s);
  return Status(StatusCode::kOutOfMemory, "the plan for input shapes " + shapes + " needs " + std::to_string(bytes) +
                                              " bytes for " + what + ", over SessionOptions::max_arena_bytes = " +
                                              std::to_string(limit));
}

Status ExecutionPlan::run_kernel(const fb::OpT& op, const CpuKernel& kernel, ThreadPool& pool, KernelState* state,
                                 std::unique_ptr<KernelState>* prepare_into) {
  KernelContext ctx{op, {}, {}, &pool, state};
  mark_blocked(op, ctx);
  ctx.inputs.reserve(op.inputs.size());
  for (int32_t index : op.inputs) ctx.inputs.push_back(index < 0 ? nullptr : &slots_[static_cast<size_t>(index)].value);
  for (int32_t index : op.outputs) ctx.outputs.push_back(&slots_[static_cast<size_t>(index)].value);
  if (prepare_into) {
    prepare_into->reset();
    if (kernel.prepare) MOTE_RETURN_IF_ERROR(kernel.prepare(ctx, *prepare_into));
    ctx.state = prepare_into->get();
  }
  return kernel.run(ctx);
}

void ExecutionPlan::prepare_time_views(const fb::OpT& op, std::vector<Tensor>& views,
                                       std::vector<const Tensor*>& inputs, std::vector<Tensor*>& outputs) const {
  views.clear();
  views.reserve(op.inputs.size() + op.outputs.size());  // no reallocation: pointers below stay valid
  for (int32_t index : op.inputs) {
    if (index < 0) {
      inputs.push_back(nullptr);
      continue;
    }
    const Slot& s = slots_[static_cast<size_t>(index)];
    views.push_back(s.storage == Storage::kConstant ? s.value
                                                    : Tensor::borrow(s.dtype, s.shape, static_cast<const void*>(nullptr)));
    inputs.push_back(&views.back());
  }
  for (int32_t index : op.outputs) {
    const Slot& s = slots_[static_cast<size_t>(index)];
    views.push_back(Tensor::borrow(s.dtype, s.shape, static_cast<const void*>(nullptr)));
    outputs.push_back(&views.back());
  }
}

Status ExecutionPlan::prepare_kernels(ThreadPool& pool) {
  const auto& ops = graph_.ops;
  for (Step& step : steps_) {
    if (step.dynamic || step.segment >= 0 || !step.kernel->prepare) continue;
    const fb::OpT& op = *ops[static_cast<size_t>(step.op_index)];
    KernelContext ctx{op, {}, {}, &pool, nullptr};
    mark_blocked(op, ctx);
    // Only constants have data at this point; see KernelPrepareFn.
    std::vector<Tensor> views;
    prepare_time_views(op, views, ctx.inputs, ctx.outputs);
    Status st = step.kernel->prepare(ctx, step.state);
    if (!st.ok()) return st.with_context(op_label(step.op_index));
  }
  return {};
}

Status ExecutionPlan::run_dynamic_step(Step& step, ThreadPool& pool) {
  const fb::OpT& op = *graph_.ops[static_cast<size_t>(step.op_index)];
  std::vector<TensorInfo> infos;
  MOTE_RETURN_IF_ERROR(infer_shapes(op, /*use_values=*/true, infos));
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    Slot& s = slots_[static_cast<size_t>(op.outputs[i])];
    s.dtype = infos[i].dtype;
    s.shape = infos[i].shape;
    uint64_t bytes = shape_numel(s.shape) > 0 ? static_cast<uint64_t>(shape_numel(s.shape)) * dtype_size(s.dtype) : 0;
    dynamic_bytes_ += bytes;
    MOTE_RETURN_IF_ERROR(check_memory_limit(
        planned_host_bytes_ + dynamic_bytes_,
        "the arena and outputs (" + std::to_string(planned_host_bytes_) + " bytes) and the tensors shaped while running (" +
            std::to_string(dynamic_bytes_) + " bytes so far, the last a " + shape_to_string(s.shape) + " " +
            dtype_name(s.dtype) + ")"));
    MOTE_RETURN_IF_ERROR(allocate(s.value, s.dtype, s.shape));
  }
  std::unique_ptr<KernelState> state;
  return run_kernel(op, *step.kernel, pool, nullptr, &state);
}

Status ExecutionPlan::run_control_step(Step& step, ThreadPool& pool) {
  const fb::OpT& op = *graph_.ops[static_cast<size_t>(step.op_index)];
  std::vector<const Tensor*> inputs;
  for (int32_t index : op.inputs) inputs.push_back(index < 0 ? nullptr : &slots_[static_cast<size_t>(index)].value);
  MOTE_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, step.control->run(inputs, pool));
  if (outputs.size() != op.outputs.size()) {
    return internal_error("control flow gave " + std::to_string(outputs.size()) + " outputs for " +
                          std::to_string(op.outputs.size()));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    Slot& s = slots_[static_cast<size_t>(op.outputs[i])];
    s.dtype = outputs[i].dtype();
    s.shape = outputs[i].shape();
    s.value = std::move(outputs[i]);
  }
  return {};
}

// A graph output's storage for this run: the last run's buffer when the
// caller has dropped every Tensor sharing it, else a new zeroed one. Fresh
// memory costs a page fault per 4 KiB and a zeroing pass on every run: for
// a 1x96x112x112 output, 0.19 ms of the 1.5 ms its 1x1 convolution took in
// all (docs/runtime.md). Kernels write every element of their outputs (an arena
// buffer holds the previous op's bytes too), so the old contents are never
// read. An output the GPU writes where the caller reads it (mapped_output's
// device memory, import_output's caller memory) is always that view.
Status ExecutionPlan::output_storage(Slot& s) {
  if (s.mapped_output.raw()) {
    s.value = s.mapped_output;  // the GPU writes it there; nothing is copied
    return {};
  }
  if (s.last_output.sole_owner() && s.last_output.dtype() == s.dtype && s.last_output.shape() == s.shape) {
    s.value = std::move(s.last_output);
    return {};
  }
  // Released only after the new allocation, which so cannot take its address
  // (tests tell reuse from a new buffer by the address).
  const Tensor released = std::exchange(s.last_output, Tensor());
  return allocate(s.value, s.dtype, s.shape);
}

Result<TensorInfo> ExecutionPlan::output_info(size_t output) const {
  const Slot& s = slots_[static_cast<size_t>(graph_.outputs[output])];
  if (!s.shape_known) return unsupported("its shape is known only when a run makes it");
  return TensorInfo{s.dtype, s.shape};
}

Result<std::vector<Tensor>> ExecutionPlan::run(const std::vector<Tensor>& inputs, ThreadPool& pool) {
  const fb::GraphT& g = graph_;
  for (size_t k = 0; k < g.inputs.size(); ++k) {
    Slot& s = slots_[static_cast<size_t>(g.inputs[k])];
    s.value = Tensor::borrow(s.dtype, s.shape, input_source(k, inputs[k]));
  }
  for (Slot& s : slots_) {
    if (s.storage == Storage::kOutput) MOTE_RETURN_IF_ERROR(output_storage(s));
  }
  dynamic_bytes_ = 0;
  profile_.clear();
  if (channel_block_ > 0) MOTE_RETURN_IF_ERROR(check_channel_block(channel_block_));
  for (size_t k = 0; k < steps_.size(); ++k) {
    Step& step = steps_[k];
    if (step.segment >= 0) {
      // A segment runs whole, at its first step.
      if (k > 0 && steps_[k - 1].segment == step.segment) continue;
      MOTE_RETURN_IF_ERROR(run_gpu_segment(step.segment));
      continue;
    }
    auto start = std::chrono::steady_clock::now();
    Status st = step.control   ? run_control_step(step, pool)
                : step.dynamic ? run_dynamic_step(step, pool)
                             : run_kernel(*g.ops[static_cast<size_t>(step.op_index)], *step.kernel, pool,
                                          step.state.get(), nullptr);
    if (!st.ok()) return st.with_context(op_label(step.op_index));
    if (options_.profile) {
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      profile_.push_back({step.op_index, op_short_label(step.op_index), "cpu", ms});
    }
  }
  std::vector<Tensor> outputs;
  for (int32_t index : g.outputs) {
    Slot& s = slots_[static_cast<size_t>(index)];
    // Outputs and dynamic tensors have storage of their own (an output's is
    // reused only once the caller lets go of it, output_storage); anything
    // else (an input or a constant passed straight through) is copied so the
    // caller owns it.
    bool fresh = s.storage == Storage::kOutput || s.storage == Storage::kDynamic;
    outputs.push_back(fresh ? s.value : s.value.clone());
  }
  for (Slot& s : slots_) {
    if (s.storage == Storage::kOutput) s.last_output = std::exchange(s.value, Tensor());
    if (s.storage == Storage::kDynamic) s.value = Tensor();
  }
  return outputs;
}

}  // namespace mote
