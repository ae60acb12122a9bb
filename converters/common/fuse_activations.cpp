// Activation fusion: an activation reading only the output of a Conv,
// ConvTranspose, Gemm or MatMul becomes that op's Op.fused, applied as the
// result is stored (one pass over memory instead of two). Patterns:
//   Relu, Sigmoid, HardSwish, LeakyRelu(alpha), HardSigmoid(alpha, beta),
//   Clip(constant min/max)
//   y * Sigmoid(y) in either operand order -> SiLU
// The producer's output must have no other reader and not be a graph output,
// since after fusion the un-activated value no longer exists.
#include <cfloat>

#include "converters/common/passes.hpp"
#include "runtime/ops/unary.hpp"

namespace mote::convert {
namespace {

constexpr const char* kPass = "fuse_activations";

bool fusable_producer(fb::OpType t) {
  return t == fb::OpType::Conv || t == fb::OpType::ConvTranspose || t == fb::OpType::Gemm || t == fb::OpType::MatMul;
}

}  // namespace

std::optional<float> constant_scalar(const Graph& g, const fb::OpT& op, size_t i) {
  if (i >= op.inputs.size() || op.inputs[i] < 0) return std::nullopt;
  const Value& v = g.values[static_cast<size_t>(op.inputs[i])];
  if (!v.is_constant() || v.data->dtype() != DType::F32 || v.data->numel() != 1) return std::nullopt;
  return v.data->data<float>()[0];
}

std::optional<fb::FusedActivationT> as_fused(const Graph& g, const fb::OpT& act) {
  fb::FusedActivationT f;
  switch (act.type) {
    case fb::OpType::Relu: f.kind = fb::ActivationKind::Relu; return f;
    case fb::OpType::Sigmoid: f.kind = fb::ActivationKind::Sigmoid; return f;
    case fb::OpType::HardSwish: f.kind = fb::ActivationKind::HardSwish; return f;
    case fb::OpType::LeakyRelu:
      f.kind = fb::ActivationKind::LeakyRelu;
      f.alpha = has_attrs<fb::ActivationAttrsT>(act) ? attrs<fb::ActivationAttrsT>(act).alpha : 0.01f;
      return f;
    case fb::OpType::HardSigmoid: {
      const ActivationParams p = activation_params(act);  // ONNX's defaults where absent
      f.kind = fb::ActivationKind::HardSigmoid;
      f.alpha = p.alpha;
      f.beta = p.beta;
      return f;
    }
    case fb::OpType::Clip: {
      f.kind = fb::ActivationKind::Clip;
      f.min = -FLT_MAX;
      f.max = FLT_MAX;
      bool has_min = act.inputs.size() > 1 && act.inputs[1] >= 0;
      bool has_max = act.inputs.size() > 2 && act.inputs[2] >= 0;
      auto lo = constant_scalar(g, act, 1);
      auto hi = constant_scalar(g, act, 2);
      if ((has_min && !lo) || (has_max && !hi)) return std::nullopt;
      if (lo) f.min = *lo;
      if (hi) f.max = *hi;
      return f;
    }
    default: return std::nullopt;
  }
}

Status fuse_activations(Graph& graph, PassLog& log) {
  std::vector<std::vector<int>> consumers = graph.consumers();
  for (auto& slot : graph.ops) {
    if (!slot || !fusable_producer(slot->type) || slot->fused || slot->outputs.size() != 1) continue;
    fb::OpT& producer = *slot;
    const int y = producer.outputs[0];
    if (graph.is_output(y)) continue;
    const std::vector<int>& readers = consumers[static_cast<size_t>(y)];
    if (readers.size() == 1) {
      auto& act_slot = graph.ops[static_cast<size_t>(readers[0])];
      if (!act_slot || act_slot->inputs.empty() || act_slot->inputs[0] != y) continue;
      auto fused = as_fused(graph, *act_slot);
      if (!fused) continue;
      producer.fused = std::make_unique<fb::FusedActivationT>(*fused);
      producer.outputs[0] = act_slot->outputs[0];
      std::string kind = fb::EnumNameActivationKind(fused->kind);
      log.count(kPass, std::string(fb::EnumNameOpType(producer.type)) + "+" + kind);
      log.note(kPass, "fused " + Graph::op_label(*act_slot) + " into " + Graph::op_label(producer));
      act_slot.reset();
      continue;
    }
    // SiLU: y read by exactly a Sigmoid and a Mul, the Mul reading y and the
    // Sigmoid's output (which nothing else reads).
    if (readers.size() != 2) continue;
    auto& r0 = graph.ops[static_cast<size_t>(readers[0])];
    auto& r1 = graph.ops[static_cast<size_t>(readers[1])];
    if (!r0 || !r1) continue;
    auto& sig = r0->type == fb::OpType::Sigmoid ? r0 : r1;
    auto& mul = r0->type == fb::OpType::Sigmoid ? r1 : r0;
    if (sig->type != fb::OpType::Sigmoid || mul->type != fb::OpType::Mul || mul->inputs.size() != 2) continue;
    const int s = sig->outputs[0];
    bool pattern = (mul->inputs[0] == y && mul->inputs[1] == s) || (mul->inputs[0] == s && mul->inputs[1] == y);
    if (!pattern || consumers[static_cast<size_t>(s)].size() != 1 || graph.is_output(s)) continue;
    auto fused = std::make_unique<fb::FusedActivationT>();
    fused->kind = fb::ActivationKind::SiLU;
    producer.fused = std::move(fused);
    producer.outputs[0] = mul->outputs[0];
    log.count(kPass, std::string(fb::EnumNameOpType(producer.type)) + "+SiLU");
    log.note(kPass, "fused " + Graph::op_label(*sig) + " and " + Graph::op_label(*mul) + " (SiLU) into " +
                        Graph::op_label(producer));
    sig.reset();
    mul.reset();
  }
  graph.compact();
  return {};
}

}  // namespace mote::convert
