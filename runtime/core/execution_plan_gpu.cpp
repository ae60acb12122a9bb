// The GPU half of ExecutionPlan: placement of each step on Vulkan or the CPU,
// and the Vulkan program that runs the GPU steps. Compiled without Vulkan
// (MOTE_VULKAN=OFF) every step stays on the CPU.
#include <algorithm>
#include <chrono>

#include "runtime/core/execution_plan.hpp"
#include "runtime/core/registry.hpp"

#if MOTE_HAS_VULKAN
#include "runtime/vulkan/device_profile.hpp"
#include "runtime/vulkan/gemm_tuning.hpp"
#include "runtime/vulkan/pipelines.hpp"
#include "runtime/vulkan/program.hpp"
#include "runtime/vulkan/storage_precision.hpp"
#include "runtime/vulkan/vk_kernel.hpp"
#endif

namespace mote {

#if MOTE_HAS_VULKAN
struct ExecutionPlan::GpuState {
  vk::Device* device = nullptr;
  bool fp16 = false;  // f16 storage, but for the ops of gpu_f32_ops
  bool f16_math = false;  // f16 products in the f16 steps (gpu_f16_arithmetic and shaderFloat16)
  // Per step: the kernel's plan while placing; moved into the program.
  std::vector<std::unique_ptr<vk::ProgramStep>> work;
  std::vector<bool> slot_read_by_cpu;
  std::vector<bool> slot_written_by_gpu;
  std::unique_ptr<vk::Program> program;
  std::vector<Tensor> staged_inputs;  // per graph input: input_source's copy, if any
  int pipelines_before = 0;  // created process-wide before this plan
};
#else
struct ExecutionPlan::GpuState {};
#endif

// Here, where GpuState is complete.
ExecutionPlan::ExecutionPlan(const Model& model, const fb::GraphT& graph, const SessionOptions& options)
    : model_(model), graph_(graph), options_(options), backend_(options.backend) {}
ExecutionPlan::~ExecutionPlan() = default;

std::vector<OpPlacement> ExecutionPlan::placement() const {
  const auto& ops = graph_.ops;
  std::vector<OpPlacement> out(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    out[i] = {static_cast<int>(i), op_short_label(static_cast<int>(i)), "folded", "inputs known at prepare time"};
  }
  for (const Step& step : steps_) {
    OpPlacement& p = out[static_cast<size_t>(step.op_index)];
    p.device = step.segment >= 0 ? "vulkan" : (backend_ == Backend::kReference ? "reference" : "cpu");
    p.reason = step.segment >= 0 ? "" : step.cpu_reason;
    if (step.segment >= 0) p.gemms = step.gemms;
    if (step.segment >= 0) p.precision = step.fp16 ? "f16" : "f32";
    p.f16_arithmetic = step.segment >= 0 && step.f16_math;
  }
  return out;
}

bool ExecutionPlan::device_only(int slot) const {
#if MOTE_HAS_VULKAN
  if (!gpu_) return false;
  size_t k = static_cast<size_t>(slot);
  return gpu_->slot_written_by_gpu[k] && !gpu_->slot_read_by_cpu[k];
#else
  (void)slot;
  return false;
#endif
}

#if MOTE_HAS_VULKAN

namespace {

// Whether `names` (op types, op names or "#index", as cpu_ops and
// gpu_f32_ops take them) names op `index` (-1: no index to match).
bool names_op(const std::vector<std::string>& names, const fb::OpT& op, int index) {
  const std::string position = std::to_string(index);
  return std::any_of(names.begin(), names.end(), [&](const std::string& s) {
    return s == op_type_name(op.type) || (!op.name.empty() && s == op.name) ||
           (index >= 0 && s.size() == position.size() + 1 && s[0] == '#' &&
            s.compare(1, std::string::npos, position) == 0);
  });
}

// The op types whose GEMM shaders take f16 products (gpu_f16_arithmetic).
// Attention and the recurrent ops run the same shaders but keep f32 products:
// Attention sums Q K^T before its 1/sqrt(d) scale, so runs of unscaled
// products pass f16's 65504 sooner, and a recurrent op's error feeds back
// into every later step.
bool takes_f16_products(fb::OpType type) {
  return type == fb::OpType::Conv || type == fb::OpType::Gemm || type == fb::OpType::MatMul;
}

}  // namespace

Status ExecutionPlan::place_steps() {
  auto device = vk::Device::get();
  if (!device.ok()) return device.status();  // Session resolved availability already
  gpu_ = std::make_unique<GpuState>();
  gpu_->device = device.value();
  gpu_->fp16 = options_.gpu_precision == GpuPrecision::kF16Storage && gpu_->device->features().fp16_storage;
  if (options_.gpu_precision == GpuPrecision::kF16Storage && !gpu_->fp16) {
    stats_.gpu_precision = "f32 (this device has no 16-bit storage buffers)";
  }
  if (gpu_->fp16 && !options_.gpu_f32_ops.empty() && !gpu_->device->features().half_conversions) {
    // Mixing needs f16 conversions in shaders, which this driver gets wrong.
    gpu_->fp16 = false;
    stats_.gpu_precision = "f32 (gpu_f32_ops needs f16 conversions, which this device's driver miscompiles)";
  }
  gpu_->device->pipelines().configure_cache(options_.pipeline_cache_dir);
  const vk::DeviceFeatures& features = gpu_->device->features();
  gpu_->f16_math = gpu_->fp16 && options_.gpu_f16_arithmetic && features.shader_float16;
  std::optional<vk::GemmTileLimits> gemm_override;
  vk::GemmTuning tuning;
  if (!options_.gpu_gemm_tile.empty()) {
    auto tile = vk::parse_gemm_tile(options_.gpu_gemm_tile, features.gemm_tile, features);
    if (!tile.ok()) return invalid_argument("SessionOptions::gpu_gemm_tile: " + tile.status().message());
    gemm_override = tile.value();
    stats_.gpu_gemm_tuning = "every GEMM on " + options_.gpu_gemm_tile + " (SessionOptions::gpu_gemm_tile)";
  } else if (gpu_->device->profile().gemm_from_environment) {
    // An experiment asked for one tile everywhere (tile_sweep.py): no tuned exceptions.
    stats_.gpu_gemm_tuning = "every GEMM on the tile of MOTE_VK_GEMM_TILE; tuning file not read";
  } else if (options_.use_gpu_tuning) {
    const std::string& dir = options_.gpu_tuning_dir.empty() ? options_.pipeline_cache_dir : options_.gpu_tuning_dir;
    tuning = vk::load_gemm_tuning(vk::pipeline_cache_dir(dir), gpu_->device->info(), features,
                                  vk::gemm_precision(gpu_->fp16, gpu_->f16_math), stats_.gpu_gemm_tuning);
  } else {
    stats_.gpu_gemm_tuning = "tuning off (SessionOptions::use_gpu_tuning)";
  }
  gpu_->pipelines_before = gpu_->device->pipelines().stats().pipelines_created;
  stats_.device_name = gpu_->device->info().name;
  const auto& ops = graph_.ops;
  gpu_->work.resize(steps_.size());

  for (size_t k = 0; k < steps_.size(); ++k) {
    Step& step = steps_[k];
    const fb::OpT& op = *ops[static_cast<size_t>(step.op_index)];
    const vk::VulkanKernel* kernel = find_vulkan_kernel(op.type);
    if (step.control) {
      step.cpu_reason = "control flow: its bodies are placed op by op in their own plans";
      continue;
    }
    if (step.dynamic) {
      step.cpu_reason = "output shape known only at run time";
      continue;
    }
    // "#N" names an op of the main graph, not of a control-flow body.
    const int position = &graph_ == &model_.graph() ? step.op_index : -1;
    if (names_op(options_.cpu_ops, op, position)) {
      step.cpu_reason = "forced to the CPU (cpu_ops)";
      continue;
    }
    if (!kernel) {
      step.cpu_reason = "no Vulkan kernel for this op type";
      continue;
    }
    std::vector<Tensor> views;
    std::vector<Tensor*> outputs;
    step.fp16 = gpu_->fp16 && !names_op(options_.gpu_f32_ops, op, position);
    vk::PlanContext ctx{op, {}, {}, features, step.fp16};
    ctx.gemm_override = gemm_override ? &*gemm_override : nullptr;
    ctx.gemm_tuning = &tuning;
    prepare_time_views(op, views, ctx.inputs, outputs);
    ctx.outputs.assign(outputs.begin(), outputs.end());
    Status planned = kernel->plan(ctx);
    if (!planned.ok()) {
      if (planned.code() != StatusCode::kUnsupported) return planned.with_context(op_label(step.op_index));
      step.cpu_reason = planned.message();
      continue;
    }
    // Build the pipelines now: a driver that fails to compile one sends the
    // op to the CPU instead of failing the model.
    Status built;
    // With f16 products where granted; a driver failing to build one of
    // those variants gets the step's f16-storage ones instead.
    const bool f16_math = gpu_->f16_math && step.fp16 && takes_f16_products(op.type);
    for (bool math : {f16_math, false}) {
      built = {};
      step.f16_math = false;
      for (const vk::Dispatch& d : ctx.dispatches) {
        const vk::PipelineKey key = vk::pipeline_key(d.shader, step.fp16, math, d.local, d.constants);
        step.f16_math = step.f16_math || key.f16_math;
        auto p = gpu_->device->pipelines().get(key);
        if (!p.ok()) {
          built = p.status();
          break;
        }
      }
      if (built.ok() || !math) break;
    }
    if (!built.ok()) {
      step.cpu_reason = "pipeline failed to build: " + built.message();
      continue;
    }
    auto work = std::make_unique<vk::ProgramStep>();
    work->label = op_label(step.op_index);
    work->fp16 = step.fp16;
    work->f16_math = step.f16_math;
    work->inputs.assign(op.inputs.begin(), op.inputs.end());
    work->outputs.assign(op.outputs.begin(), op.outputs.end());
    work->dispatches = std::move(ctx.dispatches);
    work->output_views_input = ctx.output_views_input;
    work->constants = std::move(ctx.constants);
    work->scratch = std::move(ctx.scratch);
    for (const auto& g : ctx.gemm_choices) step.gemms.push_back({g.shape.text(), g.tile, g.tuned});
    gpu_->work[k] = std::move(work);
    step.segment = 0;  // numbered below
  }

  // Islands: a run of GPU steps too small to pay for moving data in and out
  // goes back to the CPU.
  for (size_t begin = 0; begin < steps_.size();) {
    if (steps_[begin].segment < 0) {
      ++begin;
      continue;
    }
    size_t end = begin;
    int64_t elements = 0;
    while (end < steps_.size() && steps_[end].segment >= 0) {
      for (int32_t index : ops[static_cast<size_t>(steps_[end].op_index)]->outputs) {
        elements += shape_numel(slots_[static_cast<size_t>(index)].shape);
      }
      ++end;
    }
    if (elements < options_.min_gpu_island_elements) {
      for (size_t k = begin; k < end; ++k) {
        steps_[k].segment = -1;
        steps_[k].cpu_reason = "GPU island of " + std::to_string(end - begin) + " op(s), " + std::to_string(elements) +
                               " elements: too small to pay for the transfers";
        gpu_->work[k].reset();
      }
    }
    begin = end;
  }
  if (!tuning.entries.empty()) {
    int gemms = 0, tuned = 0;
    for (const Step& step : steps_) {
      if (step.segment < 0) continue;
      gemms += static_cast<int>(step.gemms.size());
      for (const GpuGemm& g : step.gemms) tuned += g.tuned ? 1 : 0;
    }
    stats_.gpu_gemm_tuning +=
        ": " + std::to_string(tuned) + " of this plan's " + std::to_string(gemms) + " GPU GEMMs tuned";
  }
  // Segments: runs of consecutive GPU steps, each one command buffer; a
  // device with a submission limit (a driver quirk) gets runs cut at it.
  const size_t most_dispatches = features.max_dispatches_per_submit;
  int f16_steps = 0, f32_steps = 0;
  for (const Step& step : steps_) {
    if (step.segment >= 0) ++(step.fp16 ? f16_steps : f32_steps);
  }
  const bool mixed = f16_steps > 0 && f32_steps > 0;
  int segment = -1;
  size_t dispatches = 0;
  for (size_t k = 0; k < steps_.size(); ++k) {
    if (steps_[k].segment < 0) continue;
    // In a session mixing precisions each float input may need a conversion
    // dispatched just before the step, in its segment (storage_precision.hpp).
    size_t own = gpu_->work[k]->dispatches.size();
    if (mixed) {
      for (int32_t index : ops[static_cast<size_t>(steps_[k].op_index)]->inputs) {
        if (index >= 0 && slots_[static_cast<size_t>(index)].dtype == DType::F32) ++own;
      }
    }
    if (k == 0 || steps_[k - 1].segment < 0 ||
        (most_dispatches && dispatches > 0 && dispatches + own > most_dispatches)) {
      ++segment;
      dispatches = 0;
    }
    dispatches += own;
    steps_[k].segment = segment;
  }

  gpu_->slot_read_by_cpu.assign(slots_.size(), false);
  gpu_->slot_written_by_gpu.assign(slots_.size(), false);
  for (const Step& step : steps_) {
    const fb::OpT& op = *ops[static_cast<size_t>(step.op_index)];
    for (int32_t index : op.inputs) {
      if (index >= 0 && step.segment < 0) gpu_->slot_read_by_cpu[static_cast<size_t>(index)] = true;
    }
    for (int32_t index : op.outputs) {
      if (step.segment >= 0) gpu_->slot_written_by_gpu[static_cast<size_t>(index)] = true;
    }
  }
  for (int32_t index : graph_.outputs) gpu_->slot_read_by_cpu[static_cast<size_t>(index)] = true;
  return {};
}

Status ExecutionPlan::build_gpu_program() {
  std::vector<vk::ProgramTensor> tensors(slots_.size());
  std::vector<bool> produced_by_cpu(slots_.size(), false);
  const auto& ops = graph_.ops;
  for (const Step& step : steps_) {
    if (step.segment >= 0) continue;
    for (int32_t index : ops[static_cast<size_t>(step.op_index)]->outputs) produced_by_cpu[static_cast<size_t>(index)] = true;
  }
  for (size_t k = 0; k < slots_.size(); ++k) {
    const Slot& s = slots_[k];
    tensors[k].dtype = s.dtype;
    tensors[k].numel = s.shape_known ? shape_numel(s.shape) : 0;
    tensors[k].constant = s.storage == Storage::kConstant ? s.value.raw() : nullptr;
    tensors[k].host_produced = s.storage == Storage::kInput || produced_by_cpu[k];
    tensors[k].graph_input = s.storage == Storage::kInput;
    tensors[k].host_read_after = gpu_->slot_read_by_cpu[k];
  }
  for (size_t k = 0; k < in_place_.inputs.size() && k < graph_.inputs.size(); ++k) {
    if (in_place_.inputs[k]) tensors[static_cast<size_t>(graph_.inputs[k])].written_in_place = true;
  }
  for (size_t k = 0; k < in_place_.outputs.size() && k < graph_.outputs.size(); ++k) {
    const auto slot = static_cast<size_t>(graph_.outputs[k]);
    if (in_place_.outputs[k] && slots_[slot].storage == Storage::kOutput) tensors[slot].read_in_place = true;
  }
  for (size_t k = 0; k < in_place_.input_memory.size() && k < graph_.inputs.size(); ++k) {
    vk::ProgramTensor& t = tensors[static_cast<size_t>(graph_.inputs[k])];
    t.caller_memory = in_place_.input_memory[k].data;
    t.caller_bytes = in_place_.input_memory[k].bytes;
  }
  for (size_t k = 0; k < in_place_.output_memory.size() && k < graph_.outputs.size(); ++k) {
    const auto slot = static_cast<size_t>(graph_.outputs[k]);
    if (slots_[slot].storage != Storage::kOutput) continue;
    tensors[slot].caller_memory = in_place_.output_memory[k].data;
    tensors[slot].caller_bytes = in_place_.output_memory[k].bytes;
  }
  std::vector<vk::ProgramStep> steps;
  for (size_t k = 0; k < steps_.size(); ++k) {
    if (steps_[k].segment < 0) continue;
    vk::ProgramStep work = std::move(*gpu_->work[k]);
    work.step = static_cast<int>(k);
    work.segment = steps_[k].segment;
    steps.push_back(std::move(work));
  }
  gpu_->work.clear();
  if (!steps.empty()) {
    vk::StoragePrecisionPlan precision = vk::assign_storage_precision(tensors, steps, gpu_->device->features());
    if (gpu_->fp16) {
      int f16_math_steps = 0;
      for (const vk::ProgramStep& s : steps) f16_math_steps += s.f16_math ? 1 : 0;
      const std::string math = gpu_->f16_math ? " (" + std::to_string(f16_math_steps) + " with f16 products)" : "";
      const bool refused = options_.gpu_f16_arithmetic && !gpu_->f16_math;
      stats_.gpu_precision = "f16 storage: " + std::to_string(precision.f16_steps) + " GPU ops f16" + math + ", " +
                             std::to_string(precision.f32_steps) + " f32 (gpu_f32_ops), " +
                             std::to_string(precision.conversions) +
                             (precision.conversions == 1 ? " conversion" : " conversions") +
                             (refused ? "; products in f32: this device has no shaderFloat16" : "");
    } else if (stats_.gpu_precision.empty()) {
      stats_.gpu_precision = "f32";
    }
    vk::ProgramOptions program_options{options_.profile, options_.max_arena_bytes};
    MOTE_ASSIGN_OR_RETURN(gpu_->program, vk::Program::build(*gpu_->device, program_options, tensors,
                                                            std::move(steps)));
    const vk::ProgramStats& ps = gpu_->program->stats();
    stats_.gpu_segments = ps.segments;
    stats_.gpu_dispatches = ps.dispatches;
    stats_.gpu_views = ps.views;
    stats_.gpu_barriers = ps.barriers;
    stats_.gpu_transfers = ps.uploads + ps.downloads;
    stats_.device_arena_bytes = ps.arena_bytes;
    stats_.device_weight_bytes = ps.weight_bytes;
    // Outputs the caller reads in place: run() hands out these views
    // (output_storage); where one cannot be (f16, made on the CPU), the
    // output is copied as any other.
    for (size_t k = 0; k < in_place_.outputs.size() && k < graph_.outputs.size(); ++k) {
      Slot& s = slots_[static_cast<size_t>(graph_.outputs[k])];
      if (!in_place_.outputs[k] || s.storage != Storage::kOutput) continue;
      auto view = gpu_->program->output_view(graph_.outputs[k], s.shape);
      if (view.ok()) s.mapped_output = std::move(view).value();
    }
    // Outputs in the caller's memory: the GPU writes them there, and run()
    // hands out Tensors over it.
    for (size_t k = 0; k < in_place_.output_memory.size() && k < graph_.outputs.size(); ++k) {
      Slot& s = slots_[static_cast<size_t>(graph_.outputs[k])];
      if (s.storage == Storage::kOutput && gpu_->program->imported(graph_.outputs[k])) {
        s.mapped_output = Tensor::borrow(s.dtype, s.shape, in_place_.output_memory[k].data);
      }
    }
  }
  Status saved = gpu_->device->pipelines().save_cache();
  vk::PipelineCacheStats cache = gpu_->device->pipelines().stats();
  // Pipelines were created during placement; count this plan's share.
  stats_.pipelines_created = cache.pipelines_created - gpu_->pipelines_before;
  stats_.pipeline_cache = vk::describe_pipeline_cache(cache, stats_.pipelines_created);
  if (!saved.ok()) stats_.pipeline_cache += " (not saved: " + saved.message() + ")";
  return {};
}

const void* ExecutionPlan::input_source(size_t k, const Tensor& input) {
  if (!gpu_ || !gpu_->program || !gpu_->program->written_by_runs(input.raw())) return input.raw();
  if (input.raw() == gpu_->program->input_address(graph_.inputs[k])) return input.raw();
  gpu_->staged_inputs.resize(graph_.inputs.size());
  gpu_->staged_inputs[k] = input.clone();
  return gpu_->staged_inputs[k].raw();
}

int ExecutionPlan::input_in_device_memory(const std::vector<Tensor>& inputs) const {
  if (!gpu_ || !gpu_->program) return -1;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (gpu_->program->written_by_runs(inputs[k].raw(), /*lost_with_device=*/true)) return static_cast<int>(k);
  }
  return -1;
}

Status ExecutionPlan::can_map_input(size_t input) const {
  if (!gpu_ || !gpu_->program) return unsupported("the plan runs no op on the GPU");
  if (std::string why = gpu_->program->input_view_refusal(graph_.inputs[input]); !why.empty()) {
    return unsupported(why);
  }
  return {};
}

Result<Tensor> ExecutionPlan::mapped_input(size_t input) const {
  const int slot = graph_.inputs[input];
  if (!gpu_ || !gpu_->program) return internal_error("mapped_input of a plan without a GPU program");
  return gpu_->program->input_view(slot, slots_[static_cast<size_t>(slot)].shape);
}

Status ExecutionPlan::can_map_output(size_t output) const {
  const int index = graph_.outputs[output];
  if (!gpu_ || !gpu_->program) return unsupported("the plan runs no op on the GPU");
  if (slots_[static_cast<size_t>(index)].storage != Storage::kOutput) return unsupported("no GPU op makes it");
  if (std::string why = gpu_->program->output_view_refusal(index); !why.empty()) return unsupported(why);
  return {};
}

Status ExecutionPlan::can_import(size_t index, bool input) const {
  const int slot = input ? graph_.inputs[index] : graph_.outputs[index];
  if (!gpu_ || !gpu_->program) return unsupported("the plan runs no op on the GPU");
  if (!input && slots_[static_cast<size_t>(slot)].storage != Storage::kOutput)
    return unsupported("no GPU op makes it");
  if (std::string why = gpu_->program->import_refusal(slot, input); !why.empty()) return unsupported(why);
  return {};
}

bool ExecutionPlan::imported(size_t index, bool input) const {
  const int slot = input ? graph_.inputs[index] : graph_.outputs[index];
  return gpu_ && gpu_->program && gpu_->program->imported(slot);
}

uint64_t ExecutionPlan::import_alignment() const {
  return gpu_ && gpu_->program ? gpu_->device->features().host_import_alignment : 0;
}

Result<Tensor> ExecutionPlan::mapped_output(size_t output) const {
  const Tensor& view = slots_[static_cast<size_t>(graph_.outputs[output])].mapped_output;
  if (!view.raw()) return internal_error("the plan was not built to keep this output for the caller");
  return view;
}

Status ExecutionPlan::run_gpu_segment(int segment) {
  Status st = gpu_->program->run_segment(segment, [this](int t) -> Tensor& { return slots_[static_cast<size_t>(t)].value; });
  if (!st.ok()) return st;
  if (options_.profile) {
    for (const auto& [step, ms] : gpu_->program->step_times()) {
      int op_index = steps_[static_cast<size_t>(step)].op_index;
      if (steps_[static_cast<size_t>(step)].segment != segment) continue;
      profile_.push_back({op_index, op_short_label(op_index), "vulkan", ms});
    }
  }
  return {};
}

#else  // !MOTE_HAS_VULKAN

Status ExecutionPlan::place_steps() { return unsupported("Mote was built without Vulkan (MOTE_VULKAN=OFF)"); }
Status ExecutionPlan::build_gpu_program() { return {}; }
Status ExecutionPlan::run_gpu_segment(int) { return internal_error("no GPU segments without Vulkan"); }
Status ExecutionPlan::can_map_input(size_t) const {
  return unsupported("Mote was built without Vulkan (MOTE_VULKAN=OFF)");
}
Result<Tensor> ExecutionPlan::mapped_input(size_t) const { return internal_error("no GPU plans without Vulkan"); }
Status ExecutionPlan::can_map_output(size_t) const {
  return unsupported("Mote was built without Vulkan (MOTE_VULKAN=OFF)");
}
Result<Tensor> ExecutionPlan::mapped_output(size_t) const { return internal_error("no GPU plans without Vulkan"); }
Status ExecutionPlan::can_import(size_t, bool) const {
  return unsupported("Mote was built without Vulkan (MOTE_VULKAN=OFF)");
}
bool ExecutionPlan::imported(size_t, bool) const { return false; }
uint64_t ExecutionPlan::import_alignment() const { return 0; }
const void* ExecutionPlan::input_source(size_t, const Tensor& input) { return input.raw(); }
int ExecutionPlan::input_in_device_memory(const std::vector<Tensor>&) const { return -1; }

#endif

}  // namespace mote
