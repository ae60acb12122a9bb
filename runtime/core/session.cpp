// Session: the public face of ExecutionPlan. Checks inputs against the model,
// keeps one plan per current input shapes and re-plans when they change.
#include "mote/session.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <optional>

#include "runtime/core/execution_plan.hpp"
#include "runtime/core/one_caller.hpp"
#include "runtime/cpu/denormals.hpp"
#include "runtime/cpu/simd_target.hpp"
#include "runtime/cpu/thread_pool.hpp"
#if MOTE_HAS_VULKAN
#include "runtime/vulkan/device.hpp"
#include "runtime/vulkan/faults.hpp"
#endif

namespace mote {

const char* backend_name(Backend backend) {
  switch (backend) {
    case Backend::kCpu: return "cpu";
    case Backend::kReference: return "reference";
    case Backend::kVulkan: return "vulkan";
    case Backend::kAuto: return "auto";
  }
  return "unknown";
}

Result<Backend> parse_backend(const std::string& name) {
  if (name == "cpu") return Backend::kCpu;
  if (name == "reference") return Backend::kReference;
  if (name == "vulkan") return Backend::kVulkan;
  if (name == "auto") return Backend::kAuto;
  return invalid_argument("unknown backend '" + name + "' (expected cpu, vulkan, auto or reference)");
}

namespace {

// kVulkan stays kVulkan when a device exists; kAuto becomes kVulkan only on a
// real GPU (a CPU-type device such as lavapipe is slower than our CPU
// kernels). Without Vulkan both become kCpu, saying why once per process.
Backend resolve_backend(Backend requested) {
  if (requested != Backend::kVulkan && requested != Backend::kAuto) return requested;
#if MOTE_HAS_VULKAN
  auto device = vk::Device::get();
  if (device.ok()) {
    if (requested == Backend::kVulkan) return Backend::kVulkan;
    VkPhysicalDeviceType type = device.value()->info().type;
    bool gpu = type == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU || type == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
    return gpu ? Backend::kVulkan : Backend::kCpu;
  }
  static std::once_flag noted;
  std::call_once(noted, [&] {
    std::fprintf(stderr, "mote: %s; running on the CPU\n", device.status().message().c_str());
  });
#else
  if (requested == Backend::kVulkan) {
    static std::once_flag noted;
    std::call_once(noted, [] { std::fprintf(stderr, "mote: built without Vulkan; running on the CPU\n"); });
  }
#endif
  return Backend::kCpu;
}

// The optimised backends' kernels count subnormals as zero and round to
// nearest (runtime/cpu/denormals.hpp), also where planning folds constants
// by running them; the reference backend keeps the caller's IEEE mode.
void enter_kernel_float_mode(Backend backend, std::optional<cpu::FlushDenormalsScope>& scope) {
  if (backend != Backend::kReference) scope.emplace();
}

}  // namespace

struct Session::Impl {
  std::shared_ptr<const Model> model;
  SessionOptions options;
  std::unique_ptr<ThreadPool> pool;
  std::unique_ptr<ExecutionPlan> plan;
  PlanStats empty_stats;
  OneCaller one_caller;
  std::string gpu_fault;  // the last GPU fault survived, for PlanStats::gpu_fault
  // Inputs and outputs the caller writes or reads in place (mapped_input,
  // mapped_output), which every GPU plan from then on keeps for it.
  InPlaceIo in_place;

  // The input shapes of the plan the caller's memory was imported for
  // (import_input, import_output); a plan for other shapes forgets it.
  std::vector<Shape> import_shapes;

  Result<Tensor> mapped_view(const std::string& name, bool input);
  Result<Tensor> import_view(const std::string& name, bool input, void* data, size_t bytes);
  // The position of input (or output) `name`, or kNotFound naming the model.
  Result<size_t> io_index(const std::string& name, bool input) const;
  // "model.mote: input 'x'": how errors about graph input or output `name` begin.
  std::string io_what(const std::string& name, bool input) const {
    return model->source() + ": " + (input ? "input" : "output") + " '" + name + "'";
  }
  // Plans again, for the current shapes, with `in_place` as the caller just
  // changed it; then `check` must pass on the new plan. On any failure
  // `undo` restores `in_place`, the session plans as before, and the error
  // says why (and whether that second plan failed too).
  Status replan_in_place(const std::function<Status()>& check, const std::function<void()>& undo);

  Status plan_for(const std::vector<Shape>& shapes) {
    if (plan && plan->input_shapes() == shapes) return {};
    if (shapes != import_shapes) {
      in_place.input_memory.clear();
      in_place.output_memory.clear();
    }
    plan.reset();
    auto built = ExecutionPlan::build(*model, shapes, options, *pool, in_place);
    if (!built.ok() && built.status().code() == StatusCode::kGpuFault) {
      MOTE_RETURN_IF_ERROR(on_gpu_fault(built.status(), "prepare"));
      return plan_on_cpu(shapes);
    }
    if (!built.ok()) return built.status().with_context(model->source());
    plan = std::move(built).value();
    return {};
  }

  Status plan_on_cpu(const std::vector<Shape>& shapes) {
    SessionOptions cpu = options;
    cpu.backend = Backend::kCpu;
    auto built = ExecutionPlan::build(*model, shapes, cpu, *pool);
    if (!built.ok()) return built.status().with_context(model->source());
    plan = std::move(built).value();
    plan->note_gpu_fault(gpu_fault);
    return {};
  }

  // A GPU fault during `stage`: drops the plan and, after a lost device,
  // leaves the GPU for good. The error when the policy is to return it;
  // ok when the caller should go on on the CPU.
  Status on_gpu_fault(const Status& fault, const char* stage) {
    plan.reset();
#if MOTE_HAS_VULKAN
    if (vk::device_lost()) options.backend = Backend::kCpu;
#endif
    gpu_fault = std::string(stage) + ": " + fault.message();
    bool fall_back = options.gpu_faults == GpuFaultPolicy::kFallBackToCpu;
    std::fprintf(stderr, "mote: %s: GPU fault during %s (%s); %s\n", model->source().c_str(), stage,
                 fault.message().c_str(),
                 fall_back ? "finishing on the CPU" : "returning the error (SessionOptions::gpu_faults)");
    return fall_back ? Status() : fault.with_context(model->source());
  }

  // Checks one input against its declaration: dtype equal, rank equal, and
  // every static dimension equal.
  Status check_input(size_t k, DType dtype, const Shape& shape) const {
    const fb::TensorT& decl = *model->graph().tensors[static_cast<size_t>(model->graph().inputs[k])];
    std::string where = model->source() + ": input '" + decl.name + "'";
    if (dtype != decl.dtype) {
      return invalid_argument(where + ": dtype " + dtype_name(dtype) + ", the model expects " + dtype_name(decl.dtype));
    }
    bool rank_ok = decl.shape.size() == shape.size();
    for (size_t i = 0; rank_ok && i < shape.size(); ++i) {
      if (shape[i] < 0 || (decl.shape[i] >= 0 && decl.shape[i] != shape[i])) rank_ok = false;
    }
    if (!rank_ok) {
      return invalid_argument(where + ": shape " + shape_to_string(shape) + " does not match the declared " +
                              shape_to_string(decl.shape));
    }
    return {};
  }
};

Session::Session() : impl_(std::make_unique<Impl>()) {}
Session::~Session() = default;

Result<std::unique_ptr<Session>> Session::create(std::shared_ptr<const Model> model, SessionOptions options) {
  if (!model) return invalid_argument("Session::create: null model");
  if (options.threads < 0) return invalid_argument("Session::create: negative thread count");
  if (const char* env = std::getenv("MOTE_BACKEND"); env && *env) {
    MOTE_ASSIGN_OR_RETURN(options.backend, parse_backend(env));
  }
  options.backend = resolve_backend(options.backend);
  // Once per process: Highway's target choice is global state, and sessions
  // may be created on many threads at once.
  static const Status simd_target = cpu::apply_simd_target_env();
  MOTE_RETURN_IF_ERROR(simd_target);
  std::unique_ptr<Session> session(new Session());
  session->impl_->model = std::move(model);
  session->impl_->options = options;
  session->impl_->pool = std::make_unique<ThreadPool>(options.threads);
  return session;
}

const Model& Session::model() const { return *impl_->model; }
const SessionOptions& Session::options() const { return impl_->options; }
int Session::thread_count() const { return impl_->pool->size(); }
const PlanStats& Session::plan_stats() const { return impl_->plan ? impl_->plan->stats() : impl_->empty_stats; }
std::vector<OpPlacement> Session::placement() const {
  return impl_->plan ? impl_->plan->placement() : std::vector<OpPlacement>{};
}
std::vector<OpTime> Session::profile() const { return impl_->plan ? impl_->plan->profile() : std::vector<OpTime>{}; }

Result<size_t> Session::Impl::io_index(const std::string& name, bool input) const {
  const fb::GraphT& g = model->graph();
  const std::vector<int32_t>& list = input ? g.inputs : g.outputs;
  for (size_t k = 0; k < list.size(); ++k) {
    if (g.tensors[static_cast<size_t>(list[k])]->name == name) return k;
  }
  return not_found(model->source() + ": the model has no " + (input ? "input" : "output") + " named '" + name + "'");
}

Status Session::Impl::replan_in_place(const std::function<Status()>& check, const std::function<void()>& undo) {
  // Built directly, not through plan_for: a fault here (a larger arena out
  // of device memory) must not move the session to the CPU.
  const std::vector<Shape> shapes = plan->input_shapes();
  std::optional<cpu::FlushDenormalsScope> float_mode;
  enter_kernel_float_mode(options.backend, float_mode);
  plan.reset();
  auto built = ExecutionPlan::build(*model, shapes, options, *pool, in_place);
  Status kept = built.ok() ? Status() : built.status();
  if (built.ok()) {
    plan = std::move(built).value();
    kept = check();
  }
  if (kept.ok()) return {};
  undo();
  plan.reset();
  if (Status again = plan_for(shapes); !again.ok()) {
    return Status(kept.code(), kept.message() + "; planning without it failed too: " + again.message());
  }
  return kept;
}

// mapped_input and mapped_output: the view of graph input or output `name`,
// with errors naming the model and the tensor. A plan keeps such a tensor's
// device bytes to itself only once asked (the others share theirs with
// intermediates): the first call for one plans again, once, with it kept.
Result<Tensor> Session::Impl::mapped_view(const std::string& name, bool input) {
  MOTE_ASSIGN_OR_RETURN(const size_t k, io_index(name, input));
  const std::string what = io_what(name, input);
  if (!plan)
    return invalid_argument(what + ": call prepare() before " + (input ? "mapped_input()" : "mapped_output()"));
  const auto refused = [&](const Status& why) {
    return Status(why.code(),
                  what + (input ? " cannot be written in place: " : " cannot be read in place: ") + why.message());
  };
  const auto can_map = [&] { return input ? plan->can_map_input(k) : plan->can_map_output(k); };
  if (Status st = can_map(); !st.ok()) return refused(st);
  std::vector<bool>& kept = input ? in_place.inputs : in_place.outputs;
  kept.resize(input ? model->graph().inputs.size() : model->graph().outputs.size(), false);
  std::vector<CallerMemory>& memory = input ? in_place.input_memory : in_place.output_memory;
  if (!kept[k] || (k < memory.size() && memory[k].data)) {
    // The device's own bytes replace the caller's memory, if it had some.
    const CallerMemory before = k < memory.size() ? memory[k] : CallerMemory{};
    if (k < memory.size()) memory[k] = {};
    kept[k] = true;
    Status st = replan_in_place(can_map, [&] {
      kept[k] = false;
      if (k < memory.size()) memory[k] = before;
    });
    if (!st.ok()) return refused(st);
  }
  return input ? plan->mapped_input(k) : plan->mapped_output(k);
}

// import_input and import_output: the GPU reads or writes graph input or
// output `name` in the caller's memory. The first call for a tensor, or one
// with other memory, plans again.
Result<Tensor> Session::Impl::import_view(const std::string& name, bool input, void* data, size_t bytes) {
  MOTE_ASSIGN_OR_RETURN(const size_t k, io_index(name, input));
  const fb::GraphT& g = model->graph();
  const std::string what = io_what(name, input);
  if (!plan)
    return invalid_argument(what + ": call prepare() before " + (input ? "import_input()" : "import_output()"));
  const auto refused = [&](const Status& why) {
    return Status(why.code(), what + " cannot use the caller's memory: " + why.message());
  };
  if (Status st = plan->can_import(k, input); !st.ok()) return refused(st);
  // An input's dtype is checked against the model's, its shape is the one
  // the plan was made for; an output's are the plan's.
  TensorInfo info;
  if (input) {
    info.dtype = g.tensors[static_cast<size_t>(g.inputs[k])]->dtype;
    info.shape = plan->input_shapes()[k];
  } else {
    MOTE_ASSIGN_OR_RETURN(info, plan->output_info(k));
  }
  const uint64_t alignment = plan->import_alignment();
  const uint64_t needed = static_cast<uint64_t>(shape_numel(info.shape)) * dtype_size(info.dtype);
  if (!data) return invalid_argument(what + ": no memory given (a null pointer)");
  if (reinterpret_cast<uintptr_t>(data) % alignment || bytes % alignment || bytes < needed) {
    return invalid_argument(what + ": the caller's memory must start at a multiple of " + std::to_string(alignment) +
                            " bytes and span a multiple of it, at least the tensor's " + std::to_string(needed) +
                            " bytes rounded up (" + std::to_string(bytes) + " bytes at " +
                            std::to_string(reinterpret_cast<uintptr_t>(data) % alignment) +
                            " past an aligned address given); Session::import_alignment() says the alignment");
  }
  // Two tensors in the same bytes would race (a GPU op writing one while
  // another reads the other), and drivers may refuse a second import.
  const auto* begin = static_cast<const uint8_t*>(data);
  for (bool other_input : {true, false}) {
    const std::vector<CallerMemory>& others = other_input ? in_place.input_memory : in_place.output_memory;
    for (size_t j = 0; j < others.size(); ++j) {
      const auto* other = static_cast<const uint8_t*>(others[j].data);
      if (!other || (other_input == input && j == k)) continue;
      if (begin < other + others[j].bytes && other < begin + bytes) {
        const int32_t index = (other_input ? g.inputs : g.outputs)[j];
        return invalid_argument(what + ": the caller's memory overlaps that of " +
                                (other_input ? "input '" : "output '") + g.tensors[static_cast<size_t>(index)]->name +
                                "'");
      }
    }
  }
  std::vector<CallerMemory>& memory = input ? in_place.input_memory : in_place.output_memory;
  memory.resize(input ? g.inputs.size() : g.outputs.size());
  if (memory[k].data != data || memory[k].bytes != bytes) {
    std::vector<bool>& kept = input ? in_place.inputs : in_place.outputs;
    const CallerMemory before = memory[k];
    const bool was_kept = k < kept.size() && kept[k];
    if (was_kept) kept[k] = false;  // the caller's memory replaces a mapped view
    memory[k] = {data, bytes};
    const std::vector<Shape> shapes_before = import_shapes;
    import_shapes = plan->input_shapes();
    Status st = replan_in_place(
        [&]() -> Status {
          if (plan->imported(k, input)) return {};
          Status why = plan->can_import(k, input);
          return why.ok() ? internal_error("the plan did not take the caller's memory") : why;
        },
        [&] {
          memory[k] = before;
          if (was_kept) kept[k] = true;
          import_shapes = shapes_before;
        });
    if (!st.ok()) return refused(st);
  }
  return Tensor::borrow(info.dtype, info.shape, data);
}

Result<Tensor> Session::mapped_input(const std::string& name) {
  OneCaller::Scope scope(impl_->one_caller);
  if (!scope.acquired()) return OneCaller::busy_error("Session::mapped_input");
  return impl_->mapped_view(name, true);
}

Result<Tensor> Session::mapped_output(const std::string& name) {
  OneCaller::Scope scope(impl_->one_caller);
  if (!scope.acquired()) return OneCaller::busy_error("Session::mapped_output");
  return impl_->mapped_view(name, false);
}

Result<Tensor> Session::import_input(const std::string& name, void* data, size_t bytes) {
  OneCaller::Scope scope(impl_->one_caller);
  if (!scope.acquired()) return OneCaller::busy_error("Session::import_input");
  return impl_->import_view(name, true, data, bytes);
}

Result<Tensor> Session::import_output(const std::string& name, void* data, size_t bytes) {
  OneCaller::Scope scope(impl_->one_caller);
  if (!scope.acquired()) return OneCaller::busy_error("Session::import_output");
  return impl_->import_view(name, false, data, bytes);
}

size_t Session::import_alignment() const {
  return impl_->plan ? static_cast<size_t>(impl_->plan->import_alignment()) : 0;
}

Status Session::prepare(const std::map<std::string, Shape>& input_shapes) {
  OneCaller::Scope scope(impl_->one_caller);
  if (!scope.acquired()) return OneCaller::busy_error("Session::prepare");
  const fb::GraphT& g = impl_->model->graph();
  for (const auto& entry : input_shapes) {
    bool found = false;
    for (int32_t index : g.inputs) found = found || g.tensors[static_cast<size_t>(index)]->name == entry.first;
    if (!found) return not_found(impl_->model->source() + ": the model has no input named '" + entry.first + "'");
  }
  std::vector<Shape> shapes;
  for (size_t k = 0; k < g.inputs.size(); ++k) {
    const fb::TensorT& decl = *g.tensors[static_cast<size_t>(g.inputs[k])];
    auto it = input_shapes.find(decl.name);
    Shape shape = it != input_shapes.end() ? it->second : decl.shape;
    if (shape_numel(shape) < 0) {
      return invalid_argument(impl_->model->source() + ": input '" + decl.name + "' has dynamic shape " +
                              shape_to_string(decl.shape) + "; give its shape to prepare()");
    }
    MOTE_RETURN_IF_ERROR(impl_->check_input(k, decl.dtype, shape));
    shapes.push_back(std::move(shape));
  }
  std::optional<cpu::FlushDenormalsScope> float_mode;
  enter_kernel_float_mode(impl_->options.backend, float_mode);
  return impl_->plan_for(shapes);
}

Result<std::vector<Tensor>> Session::run(const std::vector<Tensor>& inputs) {
  OneCaller::Scope scope(impl_->one_caller);
  if (!scope.acquired()) return OneCaller::busy_error("Session::run");
  const fb::GraphT& g = impl_->model->graph();
  if (inputs.size() != g.inputs.size()) {
    return invalid_argument(impl_->model->source() + ": run() got " + std::to_string(inputs.size()) +
                            " inputs, the model has " + std::to_string(g.inputs.size()));
  }
  std::vector<Shape> shapes;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (!inputs[k].raw() && inputs[k].numel() > 0) {
      return invalid_argument(impl_->model->source() + ": input " + std::to_string(k) + " has no data");
    }
    MOTE_RETURN_IF_ERROR(impl_->check_input(k, inputs[k].dtype(), inputs[k].shape()));
    shapes.push_back(inputs[k].shape());
  }
  std::optional<cpu::FlushDenormalsScope> float_mode;
  enter_kernel_float_mode(impl_->options.backend, float_mode);
  MOTE_RETURN_IF_ERROR(impl_->plan_for(shapes));
  auto result = impl_->plan->run(inputs, *impl_->pool);
  if (!result.ok() && result.status().code() == StatusCode::kGpuFault) {
    // The CPU plan recomputes everything from the inputs: nothing the failed
    // GPU run wrote reaches the caller. An input written in place into the
    // lost device's memory (mapped_input) is gone with it.
    const int in_place = impl_->plan->input_in_device_memory(inputs);
    MOTE_RETURN_IF_ERROR(impl_->on_gpu_fault(result.status(), "a run"));
    if (in_place >= 0 && impl_->options.backend == Backend::kCpu) {
      const fb::TensorT& decl = *g.tensors[static_cast<size_t>(g.inputs[static_cast<size_t>(in_place)])];
      return Status(StatusCode::kGpuFault,
                    impl_->model->source() + ": input '" + decl.name +
                        "' was in memory the failed GPU run writes (a mapped_input or mapped_output view, or an "
                        "output in the caller's memory);"
                        " run again with a host Tensor");
    }
    MOTE_RETURN_IF_ERROR(impl_->plan_on_cpu(shapes));
    result = impl_->plan->run(inputs, *impl_->pool);
  }
  if (!result.ok()) return result.status().with_context(impl_->model->source());
  return result;
}

Result<std::map<std::string, Tensor>> Session::run(const std::map<std::string, Tensor>& inputs) {
  const fb::GraphT& g = impl_->model->graph();
  std::vector<Tensor> ordered;
  for (int32_t index : g.inputs) {
    const std::string& name = g.tensors[static_cast<size_t>(index)]->name;
    auto it = inputs.find(name);
    if (it == inputs.end()) return not_found(impl_->model->source() + ": missing input '" + name + "'");
    ordered.push_back(it->second);
  }
  if (inputs.size() != ordered.size()) {
    return invalid_argument(impl_->model->source() + ": run() got inputs the model does not have");
  }
  MOTE_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, run(ordered));
  std::map<std::string, Tensor> named;
  for (size_t k = 0; k < outputs.size(); ++k) {
    named[g.tensors[static_cast<size_t>(g.outputs[k])]->name] = std::move(outputs[k]);
  }
  return named;
}

}  // namespace mote
