// choose_gpu_precision (mote/gpu.hpp): which ops of a model keep f32 storage
// on the GPU when the rest stores f16, decided by measuring. The model runs
// with every op's float outputs made graph outputs, once in f32 (the
// reference) and then in f16 storage with the ops chosen so far kept f32,
// until its real outputs are within the tolerance or nothing is left to
// choose (gpu_precision.hpp has the rules).
#include "runtime/core/gpu_precision.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "mote/gpu.hpp"
#include "runtime/core/model_packing.hpp"
#include "runtime/core/registry.hpp"

namespace mote {
namespace gpu_precision {

std::vector<Pick> out_of_range(const std::vector<OpMeasure>& ops, const std::vector<TensorMeasure>& tensors,
                               double limit) {
  auto first_big = [&](const std::vector<int>& list) {
    for (int t : list) {
      if (t >= 0 && tensors[static_cast<size_t>(t)].measured && tensors[static_cast<size_t>(t)].ref_max_abs > limit) {
        return t;
      }
    }
    return -1;
  };
  char text[96];
  std::vector<Pick> picks;
  for (const OpMeasure& op : ops) {
    if (!op.on_gpu) continue;
    const int made = first_big(op.outputs);
    const int t = made >= 0 ? made : first_big(op.inputs);
    if (t < 0) continue;
    std::snprintf(text, sizeof text, "%s values up to %.3g, past f16's %.0f", made >= 0 ? "makes" : "reads",
                  tensors[static_cast<size_t>(t)].ref_max_abs, limit);
    picks.push_back({op.op_index, text});
  }
  return picks;
}

double growth(const OpMeasure& op, const std::vector<TensorMeasure>& tensors) {
  double in = kHalfRounding, out = 0;
  for (int t : op.inputs) {
    if (t >= 0 && tensors[static_cast<size_t>(t)].measured) in = std::max(in, tensors[static_cast<size_t>(t)].error);
  }
  for (int t : op.outputs) {
    if (t >= 0 && tensors[static_cast<size_t>(t)].measured)
      out = std::max(out, tensors[static_cast<size_t>(t)].error);
  }
  if (!std::isfinite(in)) return 1.0;
  if (!std::isfinite(out)) return INFINITY;
  return out / in;
}

std::vector<Pick> amplifiers(const std::vector<OpMeasure>& ops, const std::vector<TensorMeasure>& tensors) {
  double top = 0;
  for (const OpMeasure& op : ops) {
    if (op.on_gpu && op.f16) top = std::max(top, growth(op, tensors));
  }
  const double bar = std::max(kMinGrowth, top / 2);
  if (top < bar) return {};
  std::map<int, int> producer;  // tensor -> op index into ops
  for (size_t i = 0; i < ops.size(); ++i) {
    for (int t : ops[i].outputs) {
      if (t >= 0) producer[t] = static_cast<int>(i);
    }
  }
  std::vector<Pick> picks;
  std::set<int> taken;
  char text[96];
  for (const OpMeasure& op : ops) {
    if (!op.on_gpu || !op.f16) continue;
    const double g = growth(op, tensors);
    if (g < bar) continue;
    std::snprintf(text, sizeof text, "grew its inputs' error %.3gx", g);
    if (taken.insert(op.op_index).second) picks.push_back({op.op_index, text});
    for (int t : op.inputs) {
      auto it = producer.find(t);
      if (it == producer.end()) continue;
      const OpMeasure& p = ops[static_cast<size_t>(it->second)];
      if (!p.on_gpu || !p.f16 || !tensors[static_cast<size_t>(t)].measured) continue;
      std::snprintf(text, sizeof text, "makes the input of op #%d, which grew its error %.3gx", op.op_index, g);
      if (taken.insert(p.op_index).second) picks.push_back({p.op_index, text});
    }
  }
  return picks;
}

}  // namespace gpu_precision

namespace {

using Clock = std::chrono::steady_clock;
using gpu_precision::OpMeasure;
using gpu_precision::TensorMeasure;

// `model` with the outputs of every op of its main graph added to its graph
// outputs (after its own), so a run returns every intermediate. The weight
// segment is copied unchanged behind the new flatbuffer.
struct Instrumented {
  std::shared_ptr<Tensor> bytes;  // the model uses them in place (a Tensor: 64-byte aligned)
  std::shared_ptr<const Model> model;
  std::vector<int> output_tensor;  // per output position, the tensor of the original graph
};

Result<Instrumented> instrument(const Model& model) {
  fb::ModelT def = model.def();  // deep copy
  Instrumented out;
  std::vector<int32_t>& outputs = def.graph->outputs;
  std::set<int32_t> seen(outputs.begin(), outputs.end());
  for (const auto& op : def.graph->ops) {
    for (int32_t t : op->outputs) {
      if (t >= 0 && seen.insert(t).second) outputs.push_back(t);
    }
  }
  out.output_tensor.assign(outputs.begin(), outputs.end());
  const uint64_t segment_at = def.segment_offset;
  if (def.segment_size && segment_at + def.segment_size > model.size()) {
    return internal_error(model.source() + ": weight segment past the end of the file");
  }
  uint8_t* file = nullptr;
  MOTE_ASSIGN_OR_RETURN(uint64_t segment_offset, pack_model(def, [&](uint64_t size) {
                          out.bytes =
                              std::make_shared<Tensor>(Tensor::zeros(DType::U8, {static_cast<int64_t>(size)}));
                          return file = out.bytes->data<uint8_t>();
                        }));
  if (def.segment_size) std::memcpy(file + segment_offset, model.data() + segment_at, def.segment_size);
  MOTE_ASSIGN_OR_RETURN(
      out.model, Model::from_buffer(file, out.bytes->bytes(), model.source() + " (every op's outputs returned)"));
  return out;
}

// max |test - ref| / max |ref| over an F32 tensor; infinite where test has a
// non-finite value ref has not.
double relative_error(const Tensor& test, const Tensor& ref) {
  const float* a = test.data<float>();
  const float* b = ref.data<float>();
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < ref.numel(); ++i) {
    if (!std::isfinite(b[i])) continue;
    if (!std::isfinite(a[i])) return INFINITY;
    diff = std::max(diff, std::fabs(static_cast<double>(a[i]) - b[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(b[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

double median_ms(Session& session, const std::vector<Tensor>& inputs, int runs) {
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    auto start = Clock::now();
    if (!session.run(inputs).ok()) return 0;
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  if (ms.empty()) return 0;
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Median wall time of a run of `model` under `options` (after a warm-up).
Result<double> time_model(const std::shared_ptr<const Model>& model, const std::vector<Tensor>& inputs,
                          const SessionOptions& options, int runs) {
  MOTE_ASSIGN_OR_RETURN(auto session, Session::create(model, options));
  MOTE_RETURN_IF_ERROR(session->run(inputs).status());
  return median_ms(*session, inputs, runs);
}

// How gpu_f32_ops names op `index`: by name, or "#index" when it has none.
std::string op_key(const fb::OpT& op, int index) {
  if (!op.name.empty()) return op.name;
  std::string key = std::to_string(index);
  key.insert(key.begin(), '#');
  return key;
}

// choose_gpu_precision for one setting of options.gpu_f16_arithmetic;
// `ran_f16_products`: some round ran an op with f16 products.
Result<GpuPrecisionReport> choose_ops(std::shared_ptr<const Model> model, const std::vector<Tensor>& inputs,
                                      SessionOptions options, const GpuPrecisionOptions& choose,
                                      bool& ran_f16_products) {
  ran_f16_products = false;
  auto say = [&](const std::string& line) {
    if (choose.progress) choose.progress(line);
  };
  MOTE_ASSIGN_OR_RETURN(Instrumented probe, instrument(*model));
  const auto& graph = model->graph();
  const size_t model_outputs = graph.outputs.size();
  options.backend = Backend::kVulkan;
  options.gpu_faults = GpuFaultPolicy::kReturnError;  // a run on the CPU would measure nothing
  options.profile = false;
  options.gpu_f32_ops.clear();
  // Every intermediate is returned, so the probe needs more memory than a
  // run; the limit is for the app's own sessions.
  options.max_arena_bytes = 0;

  struct Run {
    std::vector<Tensor> outputs;
    std::vector<OpPlacement> placement;
    PlanStats stats;
  };
  auto run = [&](GpuPrecision precision, const std::vector<std::string>& f32_ops) -> Result<Run> {
    SessionOptions o = options;
    o.gpu_precision = precision;
    o.gpu_f32_ops = f32_ops;
    MOTE_ASSIGN_OR_RETURN(auto session, Session::create(probe.model, o));
    Run r;
    MOTE_ASSIGN_OR_RETURN(r.outputs, session->run(inputs));
    r.placement = session->placement();
    r.stats = session->plan_stats();
    return r;
  };

  MOTE_ASSIGN_OR_RETURN(Run ref, run(GpuPrecision::kF32, {}));
  if (ref.stats.backend != Backend::kVulkan) {
    return unsupported("choose_gpu_precision: no usable Vulkan device (the session ran on the CPU)");
  }
  GpuPrecisionReport report;
  report.device = ref.stats.device_name;
  std::vector<TensorMeasure> tensors(graph.tensors.size());
  for (size_t k = 0; k < probe.output_tensor.size(); ++k) {
    const Tensor& t = ref.outputs[k];
    if (t.dtype() != DType::F32) continue;
    TensorMeasure& m = tensors[static_cast<size_t>(probe.output_tensor[k])];
    m.measured = true;
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (std::isfinite(t.data<float>()[i]))
        m.ref_max_abs = std::max<double>(m.ref_max_abs, std::fabs(t.data<float>()[i]));
    }
  }
  for (size_t k = 0; k < graph.inputs.size() && k < inputs.size(); ++k) {
    if (inputs[k].dtype() != DType::F32) continue;
    TensorMeasure& m = tensors[static_cast<size_t>(graph.inputs[k])];
    m.measured = true;
    m.error = gpu_precision::kHalfRounding;  // rounded once, on the way in
    for (int64_t i = 0; i < inputs[k].numel(); ++i) {
      const float v = inputs[k].data<float>()[i];
      if (std::isfinite(v)) m.ref_max_abs = std::max<double>(m.ref_max_abs, std::fabs(v));
    }
  }
  std::vector<OpMeasure> ops(graph.ops.size());
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    ops[i].op_index = static_cast<int>(i);
    ops[i].on_gpu = ref.placement[i].device == "vulkan";
    ops[i].inputs.assign(graph.ops[i]->inputs.begin(), graph.ops[i]->inputs.end());
    ops[i].outputs.assign(graph.ops[i]->outputs.begin(), graph.ops[i]->outputs.end());
  }

  std::map<int, std::string> kept;  // op index -> why it stays f32
  for (const auto& pick : gpu_precision::out_of_range(ops, tensors)) kept.emplace(pick.op_index, pick.reason);
  auto kept_names = [&] {
    std::vector<std::string> names;
    for (const auto& [index, why] : kept) names.push_back(op_key(*graph.ops[static_cast<size_t>(index)], index));
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
  };
  auto output_error = [&](const Run& r) {
    double e = 0;
    for (size_t k = 0; k < model_outputs; ++k) {
      if (r.outputs[k].dtype() == DType::F32) e = std::max(e, relative_error(r.outputs[k], ref.outputs[k]));
    }
    return e;
  };
  if (!kept.empty()) {  // the first round keeps some f32: measure all f16 for the report
    MOTE_ASSIGN_OR_RETURN(Run all, run(GpuPrecision::kF16Storage, {}));
    report.error_all_f16 = output_error(all);
  }
  char text[160];
  double error = INFINITY;
  for (int round = 0; round <= choose.max_rounds; ++round) {
    MOTE_ASSIGN_OR_RETURN(Run f16, run(GpuPrecision::kF16Storage, kept_names()));
    if (f16.stats.ops_gpu == 0) return unsupported("choose_gpu_precision: no op of the model runs on the GPU");
    if (f16.stats.gpu_precision.rfind("f16", 0) != 0) {
      return unsupported("choose_gpu_precision: " + report.device + " stores " + f16.stats.gpu_precision);
    }
    for (size_t k = 0; k < probe.output_tensor.size(); ++k) {
      TensorMeasure& m = tensors[static_cast<size_t>(probe.output_tensor[k])];
      if (m.measured) m.error = relative_error(f16.outputs[k], ref.outputs[k]);
    }
    error = output_error(f16);
    for (size_t i = 0; i < ops.size(); ++i) {
      ops[i].f16 = f16.placement[i].precision == "f16";
      ops[i].f16_math = f16.placement[i].f16_arithmetic;
      ran_f16_products = ran_f16_products || ops[i].f16_math;
    }
    if (round == 0 && kept.empty()) report.error_all_f16 = error;
    report.rounds = round + 1;
    std::snprintf(text, sizeof text, "round %d: %zu op(s) kept f32, outputs within %.3g of f32", round + 1,
                  kept.size(), error);
    say(text);
    if (error <= choose.tolerance || round == choose.max_rounds) break;  // later picks would go unmeasured
    size_t before = kept.size();
    for (const auto& pick : gpu_precision::amplifiers(ops, tensors)) kept.emplace(pick.op_index, pick.reason);
    if (kept.size() == before) break;  // nothing more to try
  }
  report.met = error <= choose.tolerance;
  report.error_chosen = error;
  report.f32_ops = kept_names();
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i].on_gpu) continue;
    GpuOpPrecision p;
    p.op_index = static_cast<int>(i);
    p.op = ref.placement[i].op;
    p.precision = ops[i].f16 ? "f16" : "f32";
    p.f16_arithmetic = ops[i].f16_math;
    report.f16_arithmetic = report.f16_arithmetic || (report.met && p.f16_arithmetic);
    double out = 0;
    for (int t : ops[i].outputs) {
      if (t >= 0 && tensors[static_cast<size_t>(t)].measured)
        out = std::max(out, tensors[static_cast<size_t>(t)].error);
    }
    p.error = out;
    p.growth = gpu_precision::growth(ops[i], tensors);
    if (auto it = kept.find(p.op_index); it != kept.end()) p.reason = it->second;
    report.ops.push_back(p);
  }
  const bool f16_math_missed = !report.met && ran_f16_products;
  if (!report.met && !f16_math_missed) {
    std::snprintf(text, sizeof text, "outputs within %.3g of f32 at best, over the tolerance %.3g: run in f32",
                  report.error_chosen, choose.tolerance);
    say(text);
  }
  if (f16_math_missed) return report;  // chosen again with f32 products: no timing
  if (choose.runs > 0) {
    SessionOptions o = options;
    o.gpu_precision = GpuPrecision::kF32;
    MOTE_ASSIGN_OR_RETURN(report.ms_f32, time_model(model, inputs, o, choose.runs));
    o.gpu_precision = GpuPrecision::kF16Storage;
    MOTE_ASSIGN_OR_RETURN(report.ms_all_f16, time_model(model, inputs, o, choose.runs));
    if (report.f32_ops.empty()) {
      report.ms_chosen = report.ms_all_f16;  // the same configuration
    } else {
      o.gpu_f32_ops = report.f32_ops;
      MOTE_ASSIGN_OR_RETURN(report.ms_chosen, time_model(model, inputs, o, choose.runs));
    }
  }
  return report;
}

}  // namespace

Result<GpuPrecisionReport> choose_gpu_precision(std::shared_ptr<const Model> model, const std::vector<Tensor>& inputs,
                                                SessionOptions options, const GpuPrecisionOptions& choose) {
  if (!model) return invalid_argument("choose_gpu_precision: no model");
  if (!(choose.tolerance > 0)) return invalid_argument("choose_gpu_precision: tolerance must be positive");
  bool ran_f16_products = false;
  MOTE_ASSIGN_OR_RETURN(GpuPrecisionReport report, choose_ops(model, inputs, options, choose, ran_f16_products));
  if (report.met || !ran_f16_products) return report;
  // f16 products cost more accuracy than the tolerance allows even with ops
  // kept f32: choose again with f16 storage alone, before giving up on f16.
  if (choose.progress) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "with f16 products the outputs are within %.3g of f32 at best, over the tolerance %.3g: "
                  "choosing again with f32 products",
                  report.error_chosen, choose.tolerance);
    choose.progress(text);
  }
  options.gpu_f16_arithmetic = false;
  MOTE_ASSIGN_OR_RETURN(GpuPrecisionReport storage, choose_ops(model, inputs, options, choose, ran_f16_products));
  storage.error_f16_arithmetic = report.error_chosen;
  return storage;
}

}  // namespace mote
