// Post-training int8 quantisation; quantize_int8.hpp describes the scheme.
#include "converters/common/quantize_int8.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <set>

#include "converters/common/mote_writer.hpp"
#include "converters/common/qdq_match.hpp"
#include "converters/common/quantize_weights.hpp"
#include "mote/model.hpp"
#include "mote/session.hpp"
#include "runtime/ops/resize.hpp"

namespace mote::convert {
namespace {

constexpr const char* kPass = "quantize_int8";
// Values kept per tensor and sample for the percentile method.
constexpr int64_t kPercentileSamplesPerRun = 4096;

using Clock = std::chrono::steady_clock;

// "mote-convert: calibrating  50% (8/16)" at every tenth of the way.
void progress_line(const char* stage, size_t done, size_t total) {
  if (done * 10 / total != (done - 1) * 10 / total || done == 1) {
    std::fprintf(stderr, "mote-convert: %s %3zu%% (%zu/%zu)\n", stage, done * 100 / total, done, total);
  }
}
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// The graph written with `extra` values as additional outputs, loaded and
// ready to run on the CPU.
struct Runner {
  Tensor bytes;  // 64-byte aligned, as Model::from_buffer needs
  std::shared_ptr<const Model> model;
  std::unique_ptr<Session> session;
};

Result<std::unique_ptr<Runner>> make_runner(Graph& graph, const std::vector<int>& extra, const std::string& name) {
  const std::vector<int> outputs = graph.outputs;
  for (int v : extra) {
    if (!graph.is_output(v)) graph.outputs.push_back(v);
  }
  auto bytes = write_mote(graph);
  graph.outputs = outputs;
  if (!bytes.ok()) return bytes.status();
  auto runner = std::make_unique<Runner>();
  runner->bytes = Tensor::zeros(DType::U8, {static_cast<int64_t>(bytes->size())});
  std::copy(bytes->begin(), bytes->end(), runner->bytes.data<uint8_t>());
  MOTE_ASSIGN_OR_RETURN(runner->model, Model::from_buffer(runner->bytes.raw(), bytes->size(), name));
  SessionOptions options;
  options.backend = Backend::kCpu;
  MOTE_ASSIGN_OR_RETURN(runner->session, Session::create(runner->model, options));
  return runner;
}

struct Observed {
  float lo = std::numeric_limits<float>::infinity();
  float hi = -std::numeric_limits<float>::infinity();
  std::vector<float> kept;  // for the percentile method
  // Below this, values need no codes of their own (narrowed ranges).
  float floor = -std::numeric_limits<float>::infinity();

  void add(const Tensor& t, bool keep) {
    const float* v = t.data<float>();
    for (int64_t i = 0; i < t.numel(); ++i) {
      lo = std::min(lo, v[i]);
      hi = std::max(hi, v[i]);
    }
    if (!keep) return;
    const int64_t stride = std::max<int64_t>(1, t.numel() / kPercentileSamplesPerRun);
    for (int64_t i = 0; i < t.numel(); i += stride) kept.push_back(v[i]);
  }

  // [lo, hi] widened to hold 0 (so that zero, padding's value, is exact).
  std::pair<float, float> range(RangeMethod method, double percentile) {
    float a = lo, b = hi;
    if (method == RangeMethod::kPercentile && !kept.empty()) {
      std::sort(kept.begin(), kept.end());
      const double tail = (100.0 - percentile) / 100.0;
      const auto at = [&](double q) {
        return kept[static_cast<size_t>(std::clamp(q, 0.0, 1.0) * static_cast<double>(kept.size() - 1))];
      };
      a = at(tail);
      b = at(1.0 - tail);
    }
    return {std::min(std::max(a, floor), 0.0f), std::max(b, 0.0f)};
  }
};

struct QParams {
  float scale = 1.0f;
  uint8_t zero = 0;
};

QParams uint8_params(std::pair<float, float> range) {
  QParams p;
  const float span = range.second - range.first;
  p.scale = span > 0 ? span / 255.0f : 1.0f;
  p.zero = static_cast<uint8_t>(std::clamp(std::nearbyint(-range.first / p.scale), 0.0f, 255.0f));
  return p;
}

bool has_residual(const fb::OpT& op) { return op.inputs.size() > 3 && op.inputs[3] >= 0; }

// The activations the int8 kernels' requantising store applies: a clamp
// (Relu, Clip), or HardSwish and SiLU on the real value (qgemm.hpp).
bool fused_activation_quantizes(const fb::OpT& op) {
  if (!op.fused) return true;
  switch (op.fused->kind) {
    case fb::ActivationKind::None:
    case fb::ActivationKind::Relu:
    case fb::ActivationKind::Clip:
    case fb::ActivationKind::HardSwish:
    case fb::ActivationKind::SiLU:
      return true;
    default:
      return false;
  }
}

// A Gemm runs as a QLinearMatMul with a bias (classifier heads: the fc of
// ResNet-18 and MobileNetV2, 0.08 and 0.07 ms in f32 at 1 thread, 2 and
// 5 MB of f32 weights): y = x W + c or x W^T + c with W and c constant.
// Why `op` stays float, or empty.
std::string gemm_float_reason(const Graph& graph, const fb::OpT& op) {
  auto value = [&](size_t i) -> const Value& { return graph.values[static_cast<size_t>(op.inputs[i])]; };
  const fb::GemmAttrsT a = attrs<fb::GemmAttrsT>(op);
  if (a.trans_a || a.alpha != 1.0f || (op.inputs.size() > 2 && a.beta != 1.0f)) return "Gemm: other than x W + c";
  // (Gemm's input is 2-D by definition, its shape maybe unknown here.)
  if (!value(0).dtype_known || value(0).dtype != DType::F32) return "Gemm: input not f32";
  if (!value(1).is_constant() || value(1).dtype != DType::F32 || value(1).data->rank() != 2) {
    return "Gemm: weights not constant 2-D f32";
  }
  const int64_t outputs = value(1).data->dim(a.trans_b ? 0 : 1);
  if (op.inputs.size() > 2 && op.inputs[2] >= 0) {
    // One per output, [M] or [1, M] (ONNX broadcasts C; [N, 1] is one per
    // row, which a per-channel bias cannot hold).
    const Value& c = value(2);
    const bool per_output = c.is_constant() && c.data->numel() == outputs &&
                            (c.data->rank() == 1 || (c.data->rank() == 2 && c.data->dim(0) == 1));
    if (!per_output) return "Gemm: bias not constant, one per output";
  }
  if (!fused_activation_quantizes(op))
    return std::string("Gemm: fused ") + fb::EnumNameActivationKind(op.fused->kind);
  return {};
}

// A MatMul x W with W a constant matrix (a linear layer without bias, or
// one whose bias fuse_matmul_bias could not take) runs as a QLinearMatMul.
std::string matmul_float_reason(const Graph& graph, const fb::OpT& op) {
  auto value = [&](size_t i) -> const Value& { return graph.values[static_cast<size_t>(op.inputs[i])]; };
  if (!value(0).dtype_known || value(0).dtype != DType::F32) return "MatMul: input not f32";
  if (!value(1).is_constant() || value(1).dtype != DType::F32 || value(1).data->rank() != 2) {
    return "MatMul: weights not a constant f32 matrix";
  }
  if (!fused_activation_quantizes(op)) {
    return std::string("MatMul: fused ") + fb::EnumNameActivationKind(op.fused->kind);
  }
  return {};
}

// Why `op` stays float, or empty when it can become a QLinearConv or a
// QLinearMatMul. A residual input (fuse_residual's Conv(x, w, b, r)) comes
// along as QLinearConv's fused residual (Mote's inputs 9-11).
std::string float_reason(const Graph& graph, const fb::OpT& op) {
  auto value = [&](size_t i) -> const Value& { return graph.values[static_cast<size_t>(op.inputs[i])]; };
  if (op.type == fb::OpType::Gemm) return gemm_float_reason(graph, op);
  if (op.type == fb::OpType::MatMul) return matmul_float_reason(graph, op);
  if (op.type != fb::OpType::Conv) return std::string(fb::EnumNameOpType(op.type)) + ": no int8 kernel";
  if (!value(0).dtype_known || value(0).dtype != DType::F32) return "Conv: input not f32";
  if (!value(1).is_constant() || value(1).dtype != DType::F32) return "Conv: weights not constant f32";
  if (op.inputs.size() > 2 && op.inputs[2] >= 0 && !value(2).is_constant()) return "Conv: bias not constant";
  if (has_residual(op) && (!value(3).dtype_known || value(3).dtype != DType::F32)) return "Conv: residual not f32";
  if (!fused_activation_quantizes(op))
    return std::string("Conv: fused ") + fb::EnumNameActivationKind(op.fused->kind);
  return {};
}

// The int8 op an Add, Mul, Concat, average pool or activation becomes, or
// Invalid.
// They run in int8 only where an input comes from an int8 op already (the
// rewrite decides): quantising float inputs just to add or pool them would
// cost more than it saves.
fb::OpType elementwise_int8_type(const fb::OpT& op) {
  switch (op.type) {
    case fb::OpType::Add:
      return op.fused || op.inputs.size() != 2 ? fb::OpType::Invalid : fb::OpType::QLinearAdd;
    case fb::OpType::Mul:
      return op.fused || op.inputs.size() != 2 ? fb::OpType::Invalid : fb::OpType::QLinearMul;
    case fb::OpType::Concat:
      return fb::OpType::QLinearConcat;
    case fb::OpType::AveragePool:
      return fb::OpType::QLinearAveragePool;
    case fb::OpType::GlobalAveragePool:
      return fb::OpType::QLinearGlobalAveragePool;
    case fb::OpType::Relu:
    case fb::OpType::Clip:
    case fb::OpType::HardSwish:
    case fb::OpType::Sigmoid:
    case fb::OpType::LeakyRelu:
    case fb::OpType::HardSigmoid:
      return fb::OpType::QLinearActivation;
    default:
      return fb::OpType::Invalid;
  }
}

// Whether `op` (elementwise_int8_type) reads only computed f32 tensors:
// a constant operand (a bias, a scale) would need quantising at every run.
// An activation reads its input only (Clip's bounds must be constants).
bool elementwise_inputs_fit(const Graph& graph, const fb::OpT& op) {
  if (elementwise_int8_type(op) == fb::OpType::QLinearActivation) {
    const Value& x = graph.values[static_cast<size_t>(op.inputs[0])];
    return op.outputs.size() == 1 && x.dtype_known && x.dtype == DType::F32 && !x.is_constant() &&
           as_fused(graph, op).has_value();
  }
  return op.outputs.size() == 1 && std::all_of(op.inputs.begin(), op.inputs.end(), [&](int v) {
           if (v < 0) return false;
           const Value& value = graph.values[static_cast<size_t>(v)];
           return value.dtype_known && value.dtype == DType::F32 && !value.is_constant();
         });
}

// The activations the int8 kernels' store cannot apply (Sigmoid,
// LeakyRelu, HardSigmoid: MobileNetV3's gates) come off the Convs, Gemms and MatMuls that would otherwise be
// quantised, as ops of their own, so those run in int8 and the activation
// as a QLinearActivation on their uint8 output; calibration then sees the
// value before the activation too. Returns, per such value, the lowest
// value that still matters to the activation, which narrows that value's
// range.
std::map<int, float> split_off_activations(Graph& graph) {
  std::map<int, float> split;
  for (size_t i = graph.ops.size(); i-- > 0;) {
    fb::OpT* op = graph.ops[i].get();
    if (!op || !op->fused || fused_activation_quantizes(*op) || op->outputs.size() != 1) continue;
    const fb::FusedActivationT act = *op->fused;
    fb::OpType type = fb::OpType::Invalid;
    float lowest = -std::numeric_limits<float>::infinity();
    switch (act.kind) {
      case fb::ActivationKind::Sigmoid:
        type = fb::OpType::Sigmoid;
        lowest = -8.0f;  // sigmoid(-8) = 0.0003
        break;
      case fb::ActivationKind::LeakyRelu:
        type = fb::OpType::LeakyRelu;
        break;
      case fb::ActivationKind::HardSigmoid:
        type = fb::OpType::HardSigmoid;
        if (act.alpha > 0) lowest = -act.beta / act.alpha;  // 0 from there down
        break;
      default:
        continue;
    }
    fb::OpT bare(*op);
    bare.fused.reset();
    if (!float_reason(graph, bare).empty()) continue;  // stays float anyway
    const int y = op->outputs[0];
    const std::string y_name = graph.values[static_cast<size_t>(y)].name;  // a copy: values grow below
    // f32, as the op's input (float_reason checked it); the shapes come
    // from propagate_shapes after the rewrite.
    const int pre = graph.add_derived_value(y_name + "_preactivation");
    graph.values[static_cast<size_t>(pre)].dtype_known = true;
    op->outputs[0] = pre;
    op->fused.reset();
    fb::OpT& inserted = graph.insert_op(i + 1, type, op->name + "_activation", {pre}, {y});
    if (type != fb::OpType::Sigmoid) {
      fb::ActivationAttrsT a;
      a.alpha = act.alpha;
      a.beta = act.beta;
      set_attrs(inserted, a);
    }
    split[pre] = lowest;
  }
  return split;
}

// The passes below rebuild the op list in order: an op that graph.add_op
// appended to graph.ops moves to the end of the new list.
void take_last_op(Graph& graph, std::vector<std::unique_ptr<fb::OpT>>& ops) {
  ops.push_back(std::move(graph.ops.back()));
  graph.ops.pop_back();
}

Tensor scalar_f32(float v) { return Tensor::from_vector<float>({1}, {v}); }
Tensor scalar_u8(uint8_t v) { return Tensor::from_vector<uint8_t>({1}, {v}); }

// What the rewrite did, by value name: compact() renumbers values.
struct QuantizedConv {
  std::string label;          // "Conv 'conv1'"
  std::string y, y_uint8;     // the float output and the uint8 one
  QParams params;             // y_uint8's
  double range = 0;           // of y in calibration
};

struct Rewrite {
  std::map<int, QParams> params;   // float value -> its uint8 parameters
  std::map<int, int> quantized;    // float value -> the uint8 value standing for it
  std::vector<QuantizedConv> convs;
  int64_t residuals = 0;  // of those, with a fused residual
  int64_t pools = 0;      // MaxPools and Resizes run on uint8
  int64_t reshapes = 0;   // Reshapes and Flattens run on uint8
  int64_t gemms = 0;      // of the quantised ops, Gemms and MatMuls run as QLinearMatMuls
  int64_t matmuls = 0;
  std::map<std::string, int64_t> elementwise;  // "Add -> QLinearAdd": count
  // Values an int8 op produces in uint8 (QLinearConv, QLinearMatMul, MaxPool): a MaxPool
  // passes those through. One whose stand-in a QuantizeLinear made stays
  // float (its float readers keep the exact values).
  std::set<int> produced_uint8;
  std::map<std::string, int64_t> kept_float;  // pass-through ops left in float, by reason
};

// MaxPool without Indices commutes with quantisation (a max of uint8 codes
// is the code of the max), and so do a nearest Resize (it copies values), a
// linear one (up to its rounding, one code at a tie: runtime/ops/resize.hpp)
// and the ops that
// only reshape (Reshape,
// Flatten: fuse_matmul_bias puts Reshapes around the Gemms of a rank-3
// linear layer), so they run on their input's uint8 stand-in with the same
// scale and zero point: no DequantizeLinear before them and no
// QuantizeLinear after (ResNet-18's stem pool cost ~1 ms of float round trip
// per run on a Zen 3 core).
bool passes_uint8_through(const fb::OpT& op) {
  const bool resize = op.type == fb::OpType::Resize && resize_runs_on_codes(attrs<fb::ResizeAttrsT>(op));
  return (op.type == fb::OpType::MaxPool || op.type == fb::OpType::Reshape || op.type == fb::OpType::Flatten ||
          resize) &&
         op.outputs.size() == 1;
}

// `op` (passes_uint8_through) on its input's uint8 stand-in, when there is
// one; DequantizeLinear gives float readers y back.
bool rewrite_pass_through(Graph& graph, const fb::OpT& op, std::vector<std::unique_ptr<fb::OpT>>& ops, Rewrite& rw) {
  const int x = op.inputs[0], y = op.outputs[0];
  auto xq = rw.quantized.find(x);
  if (xq == rw.quantized.end() || !rw.produced_uint8.count(x)) {
    // (Reshapes of float tensors are everywhere, and cost nothing: only
    // a float MaxPool is worth a line in the report.)
    if (op.type == fb::OpType::MaxPool) ++rw.kept_float["MaxPool: input not from an int8 op"];
    return false;
  }
  const QParams p = rw.params.at(x);
  rw.params[y] = p;
  const std::string y_name = graph.values[static_cast<size_t>(y)].name;  // a copy: values grow below
  const int yq = graph.add_derived_value(y_name + "_uint8");
  auto q = std::make_unique<fb::OpT>(op);  // the same op (attributes, a Reshape's shape) on the stand-in
  q->inputs[0] = xq->second;
  q->outputs = {yq};
  ops.push_back(std::move(q));
  rw.quantized[y] = yq;
  rw.produced_uint8.insert(y);
  ++(op.type == fb::OpType::Reshape || op.type == fb::OpType::Flatten ? rw.reshapes : rw.pools);
  const int scale = graph.add_derived_constant(y_name + "_scale", scalar_f32(p.scale));
  const int zero = graph.add_derived_constant(y_name + "_zero_point", scalar_u8(p.zero));
  graph.add_op(fb::OpType::DequantizeLinear, op.name + "_dequantize", {yq, scale, zero}, {y});
  set_attrs(*graph.ops.back(), fb::QuantizeAttrsT{});
  take_last_op(graph, ops);
  return true;
}

// The SiLUs x * Sigmoid(x) left as ops (fuse_activations fuses those after
// a Conv, Gemm or MatMul; these follow other ops): by op index, each Mul
// with its x, and the Sigmoids in them. On uint8 they run as
// one QLinearActivation table of x * sigmoid(x): a Sigmoid table would give
// values in [0, 1] at x's scale, which for an x of range 170 (EfficientNet's
// later layers) is 0.7 a code, and the product would carry that error.
struct SiluPairs {
  std::map<size_t, int> muls;
  std::set<size_t> sigmoids;
};

SiluPairs find_silus(const Graph& graph) {
  SiluPairs found;
  const std::vector<std::vector<int>> consumers = graph.consumers();
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const fb::OpT* sig = graph.ops[i].get();
    if (!sig || sig->type != fb::OpType::Sigmoid || sig->outputs.size() != 1) continue;
    const int x = sig->inputs[0], s = sig->outputs[0];
    const auto& readers = consumers[static_cast<size_t>(s)];
    if (readers.size() != 1 || graph.is_output(s)) continue;
    const fb::OpT* mul = graph.ops[static_cast<size_t>(readers[0])].get();
    if (mul->type != fb::OpType::Mul || mul->fused || mul->inputs.size() != 2) continue;
    if (!((mul->inputs[0] == x && mul->inputs[1] == s) || (mul->inputs[0] == s && mul->inputs[1] == x))) continue;
    found.muls[static_cast<size_t>(readers[0])] = x;
    found.sigmoids.insert(i);
  }
  return found;
}

// Replaces each candidate Conv by [QuantizeLinear] QLinearConv
// DequantizeLinear, and each Gemm or MatMul the same way by a
// QLinearMatMul, keeping execution order; a float input (x, or the
// residual) is quantised once, however many ops read it.
void rewrite(Graph& graph, const std::vector<bool>& candidate, std::map<int, Observed>& observed,
             const QuantizeOptions& options, Rewrite& rw) {
  auto params_of = [&](int v) {
    auto it = rw.params.find(v);
    if (it != rw.params.end()) return it->second;
    QParams p = uint8_params(observed[v].range(options.method, options.percentile));
    rw.params[v] = p;
    return p;
  };
  const SiluPairs silus = find_silus(graph);
  std::vector<std::unique_ptr<fb::OpT>> ops;
  std::vector<std::unique_ptr<fb::OpT>> old = std::move(graph.ops);
  graph.ops.clear();
  for (size_t i = 0; i < old.size(); ++i) {
    if (!old[i]) continue;
    // A SiLU's Sigmoid: decided at its Mul (dead once that runs in int8).
    if (!candidate[i] || silus.sigmoids.count(i)) {
      if (!passes_uint8_through(*old[i]) || !rewrite_pass_through(graph, *old[i], ops, rw)) {
        ops.push_back(std::move(old[i]));
      }
      continue;
    }
    const fb::OpT& op = *old[i];
    // v's uint8 stand-in with its scale and zero point, quantised here
    // unless an earlier op did (or produced it in uint8).
    struct Quantized {
      int value, scale, zero;
    };
    auto quantized_input = [&](int v, const std::string& suffix) {
      const QParams p = params_of(v);
      const std::string name = graph.values[static_cast<size_t>(v)].name;  // a copy: values grow below
      Quantized q{-1, graph.add_derived_constant(name + "_scale", scalar_f32(p.scale)),
                  graph.add_derived_constant(name + "_zero_point", scalar_u8(p.zero))};
      if (auto it = rw.quantized.find(v); it != rw.quantized.end()) {
        q.value = it->second;
      } else {
        q.value = graph.add_derived_value(name + "_uint8");
        graph.add_op(fb::OpType::QuantizeLinear, op.name + suffix, {v, q.scale, q.zero}, {q.value});
        set_attrs(*graph.ops.back(), fb::QuantizeAttrsT{});
        take_last_op(graph, ops);
        rw.quantized[v] = q.value;
      }
      return q;
    };
    const int y = op.outputs[0];
    const QParams yp = params_of(y);
    const std::string y_name = graph.values[static_cast<size_t>(y)].name;  // a copy: values grow below
    // y's uint8 stand-in, the op writing it (its inputs from
    // inputs_with(y_scale, y_zero)), and a DequantizeLinear giving float
    // readers and graph outputs y back (remove_dead drops it when nobody
    // reads it).
    auto add_int8_op = [&](fb::OpType type, auto inputs_with) -> fb::OpT& {
      const int y_scale = graph.add_derived_constant(y_name + "_scale", scalar_f32(yp.scale));
      const int y_zero = graph.add_derived_constant(y_name + "_zero_point", scalar_u8(yp.zero));
      const int yq = graph.add_derived_value(y_name + "_uint8");
      graph.add_op(type, op.name, inputs_with(y_scale, y_zero), {yq});
      take_last_op(graph, ops);
      fb::OpT& q = *ops.back();
      rw.quantized[y] = yq;
      rw.produced_uint8.insert(y);
      rw.convs.push_back({Graph::op_label(op), y_name, graph.values[static_cast<size_t>(yq)].name, yp,
                          double{observed[y].hi} - observed[y].lo});
      graph.add_op(fb::OpType::DequantizeLinear, op.name + "_dequantize", {yq, y_scale, y_zero}, {y});
      set_attrs(*graph.ops.back(), fb::QuantizeAttrsT{});
      take_last_op(graph, ops);
      return q;
    };
    const auto silu = silus.muls.find(i);
    if (const fb::OpType int8_type =
            silu != silus.muls.end() ? fb::OpType::QLinearActivation : elementwise_int8_type(op);
        int8_type != fb::OpType::Invalid) {
      if (std::none_of(op.inputs.begin(), op.inputs.end(), [&](int v) { return rw.produced_uint8.count(v) > 0; })) {
        // (Float activations are everywhere, and cost little: only the
        // other ops are worth a line in the report.)
        if (int8_type != fb::OpType::QLinearActivation) {
          ++rw.kept_float[std::string(fb::EnumNameOpType(op.type)) + ": no input from an int8 op"];
        }
        ops.push_back(std::move(old[i]));
        continue;
      }
      if (silu != silus.muls.end()) {
        const Quantized xq = quantized_input(silu->second, "_quantize");
        fb::OpT& q = add_int8_op(fb::OpType::QLinearActivation, [&](int y_scale, int y_zero) {
          return std::vector<int>{xq.value, xq.scale, xq.zero, y_scale, y_zero};
        });
        q.fused = std::make_unique<fb::FusedActivationT>();
        q.fused->kind = fb::ActivationKind::SiLU;
        ++rw.elementwise["SiLU (Sigmoid, Mul) -> QLinearActivation"];
        continue;
      }
      const bool activation = int8_type == fb::OpType::QLinearActivation;
      std::vector<int> operands;  // (value, scale, zero point) per input
      for (size_t k = 0; k < (activation ? 1 : op.inputs.size()); ++k) {
        const Quantized q = quantized_input(op.inputs[k], "_quantize_" + std::to_string(k));
        operands.insert(operands.end(), {q.value, q.scale, q.zero});
      }
      fb::OpT& q = add_int8_op(int8_type, [&](int y_scale, int y_zero) {
        // QLinearConcat's output parameters come first, the others' last.
        std::vector<int> inputs = operands;
        inputs.insert(int8_type == fb::OpType::QLinearConcat ? inputs.begin() : inputs.end(), {y_scale, y_zero});
        return inputs;
      });
      if (op.type == fb::OpType::Concat) set_attrs(q, attrs<fb::AxisAttrsT>(op));
      if (op.type == fb::OpType::AveragePool) set_attrs(q, attrs<fb::PoolAttrsT>(op));
      if (activation) q.fused = std::make_unique<fb::FusedActivationT>(*as_fused(graph, op));
      ++rw.elementwise[std::string(fb::EnumNameOpType(op.type)) + " -> " + fb::EnumNameOpType(int8_type)];
      continue;
    }
    const bool conv = op.type == fb::OpType::Conv;
    const int x = op.inputs[0];
    const QParams xp = params_of(x);
    const Quantized xq = quantized_input(x, "_quantize");
    QuantizedWeights w;
    if (conv) {
      // Depthwise layers keep 8 bits: their int8 kernels take 8-bit weights
      // at full speed (vpdpbusd) or compute in f32 (qdepthwise.hpp), so fewer
      // bits would cost precision for nothing.
      const Tensor& wt = *graph.values[static_cast<size_t>(op.inputs[1])].data;
      const bool depthwise = attrs<fb::ConvAttrsT>(op).group > 1 && wt.dim(1) == 1;
      w = quantize_conv_weights(graph, op, xp.scale, depthwise ? 8 : options.weight_bits);
    } else {
      w = quantize_linear_weights(graph, op, xp.scale, options.weight_bits);
      ++(op.type == fb::OpType::Gemm ? rw.gemms : rw.matmuls);
    }
    std::vector<int> residual;
    if (conv && has_residual(op)) {
      const Quantized rq = quantized_input(op.inputs[3], "_quantize_residual");
      residual = {rq.value, rq.scale, rq.zero};
      ++rw.residuals;
    }
    fb::OpT& q =
        add_int8_op(conv ? fb::OpType::QLinearConv : fb::OpType::QLinearMatMul, [&](int y_scale, int y_zero) {
          std::vector<int> inputs = {xq.value, xq.scale, xq.zero, w.w, w.w_scale, w.w_zero, y_scale, y_zero, w.bias};
          if (!residual.empty()) {
            inputs.insert(inputs.end(), residual.begin(), residual.end());
          } else if (w.bias < 0) {
            inputs.pop_back();
          }
          return inputs;
        });
    if (conv) set_attrs(q, attrs<fb::ConvAttrsT>(op));
    if (op.fused) q.fused = std::make_unique<fb::FusedActivationT>(*op.fused);
  }
  graph.ops = std::move(ops);
}

// out[name], or an internal error naming the run (a bug, not bad input).
Result<const Tensor*> output_named(const std::map<std::string, Tensor>& out, const std::string& name,
                                   const char* run) {
  auto it = out.find(name);
  if (it == out.end()) return internal_error(std::string(run) + " gave no tensor '" + name + "'");
  return &it->second;
}

Status calibrate(Graph& graph, const std::vector<int>& watched, const QuantizeOptions& options,
                 std::map<int, Observed>& observed) {
  MOTE_ASSIGN_OR_RETURN(auto runner, make_runner(graph, watched, "calibration graph"));
  for (size_t s = 0; s < options.samples.size(); ++s) {
    if (options.progress) progress_line("calibrating", s + 1, options.samples.size());
    auto out = runner->session->run(options.samples[s]);
    if (!out.ok()) return out.status().with_context("calibration sample " + std::to_string(s));
    for (int v : watched) {
      MOTE_ASSIGN_OR_RETURN(const Tensor* t,
                            output_named(*out, graph.values[static_cast<size_t>(v)].name, "the calibration graph"));
      observed[v].add(*t, options.method == RangeMethod::kPercentile);
    }
  }
  return {};
}

int find_value(const Graph& graph, const std::string& name) {
  for (size_t i = 0; i < graph.values.size(); ++i) {
    if (graph.values[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// Runs the float runner and the quantised graph side by side on the samples.
Status measure(Graph& graph, Runner& float_runner, const Rewrite& rw, const QuantizeOptions& options,
               QuantizeReport& report) {
  std::vector<int> extra;
  for (const QuantizedConv& c : rw.convs) extra.push_back(find_value(graph, c.y_uint8));
  MOTE_ASSIGN_OR_RETURN(auto quantized, make_runner(graph, extra, "quantized graph"));
  std::vector<double> sq(rw.convs.size(), 0.0);
  std::vector<int64_t> count(rw.convs.size(), 0);
  report.quantized.resize(rw.convs.size());
  report.outputs.resize(graph.outputs.size());
  for (size_t s = 0; s < options.samples.size(); ++s) {
    if (options.progress) progress_line("measuring int8 error", s + 1, options.samples.size());
    auto want = float_runner.session->run(options.samples[s]);
    if (!want.ok()) return want.status();
    auto got = quantized->session->run(options.samples[s]);
    if (!got.ok()) return got.status().with_context("quantized graph, sample " + std::to_string(s));
    for (size_t j = 0; j < rw.convs.size(); ++j) {
      const QuantizedConv& c = rw.convs[j];
      MOTE_ASSIGN_OR_RETURN(const Tensor* fp, output_named(*want, c.y, "the float graph"));
      MOTE_ASSIGN_OR_RETURN(const Tensor* qp, output_named(*got, c.y_uint8, "the quantized graph"));
      const Tensor& f = *fp;
      const Tensor& q = *qp;
      QuantizedOutput& r = report.quantized[j];
      for (int64_t i = 0; i < f.numel(); ++i) {
        const double real = double{c.params.scale} * (static_cast<double>(q.data<uint8_t>()[i]) - c.params.zero);
        const double e = std::fabs(real - f.data<float>()[i]);
        r.max_abs_error = std::max(r.max_abs_error, e);
        sq[j] += e * e;
      }
      count[j] += f.numel();
    }
    for (size_t j = 0; j < graph.outputs.size(); ++j) {
      const std::string& name = graph.values[static_cast<size_t>(graph.outputs[j])].name;
      MOTE_ASSIGN_OR_RETURN(const Tensor* fp, output_named(*want, name, "the float graph"));
      MOTE_ASSIGN_OR_RETURN(const Tensor* qp, output_named(*got, name, "the quantized graph"));
      const Tensor& f = *fp;
      const Tensor& q = *qp;
      GraphOutputError& e = report.outputs[j];
      e.name = name;
      if (f.dtype() != DType::F32 || q.dtype() != DType::F32) continue;
      for (int64_t i = 0; i < f.numel(); ++i) {
        e.max_abs_error = std::max(e.max_abs_error, double{std::fabs(f.data<float>()[i] - q.data<float>()[i])});
        e.max_abs_float = std::max(e.max_abs_float, double{std::fabs(f.data<float>()[i])});
      }
      const int64_t classes = f.shape().empty() ? 1 : f.shape().back();
      for (int64_t row = 0; classes > 1 && row < f.numel() / classes; ++row) {
        const float* a = f.data<float>() + row * classes;
        const float* b = q.data<float>() + row * classes;
        e.argmax_agree += std::max_element(a, a + classes) - a == std::max_element(b, b + classes) - b;
        ++e.samples;
      }
    }
  }
  for (size_t j = 0; j < rw.convs.size(); ++j) {
    QuantizedOutput& r = report.quantized[j];
    r.op = rw.convs[j].label;
    r.tensor = rw.convs[j].y;
    r.range = rw.convs[j].range;
    r.rms_error = count[j] ? std::sqrt(sq[j] / static_cast<double>(count[j])) : 0.0;
  }
  return {};
}

}  // namespace

Result<QuantizeReport> quantize_int8(Graph& graph, const QuantizeOptions& options, PassLog& log) {
  if (options.samples.empty()) return invalid_argument("--quantize int8 needs calibration inputs");
  if (options.weight_bits != 7 && options.weight_bits != 8) {
    return invalid_argument("--weight-bits must be 7 or 8, got " + std::to_string(options.weight_bits));
  }
  if (!graph.subgraphs.empty()) {
    return unsupported("--quantize int8: graphs with control flow (If, Loop, Scan) are not quantised yet");
  }
  QuantizeReport report;
  const std::map<int, float> split = split_off_activations(graph);
  if (!split.empty()) log.count(kPass, "activation split off a quantisable op", static_cast<int64_t>(split.size()));
  std::vector<bool> candidate(graph.ops.size(), false);
  std::vector<int> watched;
  std::set<int> seen;
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const auto& op = graph.ops[i];
    if (!op || passes_uint8_through(*op)) continue;  // decided by rewrite, from its input
    if (elementwise_int8_type(*op) != fb::OpType::Invalid && elementwise_inputs_fit(graph, *op)) {
      // Watched for their ranges; rewrite decides from their inputs.
      candidate[i] = true;
      const bool activation = elementwise_int8_type(*op) == fb::OpType::QLinearActivation;
      for (size_t k = 0; k < (activation ? 1 : op->inputs.size()); ++k) {
        if (seen.insert(op->inputs[k]).second) watched.push_back(op->inputs[k]);
      }
      if (seen.insert(op->outputs[0]).second) watched.push_back(op->outputs[0]);
      continue;
    }
    if (const fb::OpType int8_type = elementwise_int8_type(*op); int8_type != fb::OpType::Invalid) {
      // (Activations of other inputs are everywhere, and cost little.)
      if (int8_type != fb::OpType::QLinearActivation) {
        ++report.kept_float[std::string(fb::EnumNameOpType(op->type)) + ": a constant or non-f32 operand"];
      }
      continue;
    }
    const std::string why = float_reason(graph, *op);
    if (!why.empty()) {
      ++report.kept_float[why];
      continue;
    }
    candidate[i] = true;
    for (int v : {op->inputs[0], op->outputs[0], has_residual(*op) ? op->inputs[3] : -1}) {
      if (v >= 0 && seen.insert(v).second) watched.push_back(v);
    }
  }
  if (watched.empty()) return report;

  auto start = Clock::now();
  std::map<int, Observed> observed;
  MOTE_RETURN_IF_ERROR(calibrate(graph, watched, options, observed));
  // Codes spent below where the activation stops changing would be lost
  // precision: a Sigmoid's input range starts at -8 at most.
  for (const auto& [pre, lowest] : split) {
    if (auto it = observed.find(pre); it != observed.end()) it->second.floor = lowest;
  }
  report.calibrate_ms = ms_since(start);
  // The float graph, kept for the comparison (its bytes are self-contained).
  MOTE_ASSIGN_OR_RETURN(auto float_runner, make_runner(graph, watched, "float graph"));

  Rewrite rw;
  rewrite(graph, candidate, observed, options, rw);
  int64_t elementwise = 0;
  for (const auto& entry : rw.elementwise) elementwise += entry.second;
  const int64_t convs = static_cast<int64_t>(rw.convs.size()) - rw.gemms - rw.matmuls - elementwise;
  if (convs > 0) log.count(kPass, "Conv -> QLinearConv", convs);
  if (rw.gemms > 0) log.count(kPass, "Gemm -> QLinearMatMul", rw.gemms);
  if (rw.matmuls > 0) log.count(kPass, "MatMul -> QLinearMatMul", rw.matmuls);
  if (rw.residuals > 0) log.count(kPass, "residual Add fused into QLinearConv", rw.residuals);
  if (rw.pools > 0) log.count(kPass, "MaxPool or Resize on uint8", rw.pools);
  if (rw.reshapes > 0) log.count(kPass, "Reshape or Flatten on uint8", rw.reshapes);
  for (const auto& [what, n] : rw.elementwise) log.count(kPass, what, n);
  for (const auto& [reason, n] : rw.kept_float) report.kept_float[reason] += n;
  for (const auto& [reason, n] : report.kept_float) log.note(kPass, "float: " + reason + " (" + std::to_string(n) + ")");
  MOTE_RETURN_IF_ERROR(remove_dead(graph, log));
  MOTE_RETURN_IF_ERROR(propagate_shapes(graph, log));

  start = Clock::now();
  MOTE_RETURN_IF_ERROR(measure(graph, *float_runner, rw, options, report));
  report.measure_ms = ms_since(start);
  return report;
}

Result<QuantizeReport> quantize_graph(Graph& graph, const QuantizeRequest& request, PassLog& log) {
  QuantizeOptions options;
  MOTE_ASSIGN_OR_RETURN(options.samples, load_calibration(graph, request.calibrate));
  options.method = request.method;
  options.percentile = request.percentile;
  options.weight_bits = request.weight_bits;
  options.progress = request.progress;
  return quantize_int8(graph, options, log);
}

}  // namespace mote::convert
