// QDQ folding of the ops around the convolutions (after fold_qdq.cpp has
// folded those): in a QDQ model every quantised op reads DequantizeLinear
// outputs and writes into a QuantizeLinear, and these become int8 ops:
//
//   Add | Mul(DQ(a), DQ(b)) -> [Relu | Clip] -> Q   QLinearAdd | QLinearMul
//   Concat(DQ(x0), DQ(x1)...) -> Q                   QLinearConcat
//   AveragePool | GlobalAveragePool(DQ(x)) -> Q      QLinearAveragePool | QLinearGlobalAveragePool
//   Relu | Clip | HardSwish | Sigmoid | LeakyRelu | HardSigmoid(DQ(x)) -> Q
//                                                    QLinearActivation
//
// and the ops that only move or pick values (MaxPool, nearest Resize,
// Reshape, Flatten, Transpose, Squeeze, Unsqueeze) run on the 8-bit tensor
// itself when the Q after them has the DQ's scale, zero point and type:
// a max, a copy or a move of codes is the code of the same of the values,
// so the pair around them is an identity. So does a linear Resize: its
// weights sum to 1, so interpolating codes is interpolating the values at
// the same scale, rounded once (one code apart from the chain at an exact
// tie when the zero point is odd: runtime/ops/resize.hpp).
//
// Left float, with the reason in the report: per-axis parameters, A and B
// of differing types (QLinearAdd's and QLinearMul's kernels take one type),
// a float output read elsewhere, a pass-through op whose Q requantises.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "converters/common/passes.hpp"
#include "converters/common/qdq_match.hpp"
#include "runtime/ops/resize.hpp"

namespace mote::convert {
namespace {

constexpr const char* kPass = "fold_qdq";

using namespace qdq;  // NOLINT: the shared matching pieces

struct Context {
  Graph& graph;
  const std::vector<int>& producers;
  const std::vector<std::vector<int>>& consumers;
};

const fb::OpT* dequantize_of(const Context& c, int v) {
  return producer_of(c.graph, c.producers, v, fb::OpType::DequantizeLinear);
}

// A new op in `op`'s place writing the Q's output; empty inputs.
std::unique_ptr<fb::OpT> folded_op(const fb::OpT& op, fb::OpType type, const Match& m, const Graph& g) {
  auto folded = std::make_unique<fb::OpT>();
  folded->type = type;
  folded->name = op.name;
  folded->outputs = {g.ops[static_cast<size_t>(m.quantize)]->outputs[0]};
  return folded;
}

// DQ's x_q, scale and zero point (a new 0 of x_q's type when absent).
void append_dequantized(Context& c, const fb::OpT& dq, const std::string& name, std::vector<int>& inputs) {
  const DType dtype = dequantized_dtype(c.graph, dq);
  inputs.insert(inputs.end(), {dq.inputs[0], dq.inputs[1], zero_point(c.graph, dq, dtype, name)});
}

// Q's scale and zero point (a new 0 of its type when absent).
void append_quantized(Context& c, const Match& m, const std::string& name, std::vector<int>& inputs) {
  const fb::OpT& q = *c.graph.ops[static_cast<size_t>(m.quantize)];
  const DType dtype = quantized_dtype(c.graph, q);
  const int scale = q.inputs[1];
  inputs.insert(inputs.end(), {scale, zero_point(c.graph, q, dtype, name)});
}

// Add or Mul -> QLinearAdd or QLinearMul. Why not, or empty; `matched` is
// false when the op is no quantised one at all (nothing to report).
std::string fold_binary(Context& c, size_t i, bool& matched) {
  const fb::OpT& op = *c.graph.ops[i];
  const fb::OpT* dq_a = dequantize_of(c, op.inputs[0]);
  const fb::OpT* dq_b = op.inputs.size() > 1 ? dequantize_of(c, op.inputs[1]) : nullptr;
  matched = dq_a && dq_b;
  if (!matched) return "";
  if (op.fused) return "fused activation";
  for (const fb::OpT* dq : {dq_a, dq_b}) {
    if (std::string why = match_input(c.graph, *dq); !why.empty()) return why;
  }
  Match m;
  if (std::string why = match_output(c.graph, c.consumers, op.outputs[0], m); !why.empty()) return why;
  const DType t = dequantized_dtype(c.graph, *dq_a);
  if (dequantized_dtype(c.graph, *dq_b) != t ||
      quantized_dtype(c.graph, *c.graph.ops[static_cast<size_t>(m.quantize)]) != t) {
    return "A, B and the output not of one 8-bit type";
  }
  const bool add = op.type == fb::OpType::Add;
  auto folded = folded_op(op, add ? fb::OpType::QLinearAdd : fb::OpType::QLinearMul, m, c.graph);
  const std::string name = op.name;  // a copy: zero_point may move every Value and op
  append_dequantized(c, *dq_a, name + "/A_zero_point", folded->inputs);
  append_dequantized(c, *dq_b, name + "/B_zero_point", folded->inputs);
  append_quantized(c, m, name + "/C_zero_point", folded->inputs);
  finish_fold(c.graph, m, std::move(folded), i);
  return "";
}

// Concat of dequantised inputs -> QLinearConcat.
std::string fold_concat(Context& c, size_t i, bool& matched) {
  const fb::OpT& op = *c.graph.ops[i];
  std::vector<const fb::OpT*> dqs;
  for (int v : op.inputs) dqs.push_back(dequantize_of(c, v));
  matched = !dqs.empty() && std::all_of(dqs.begin(), dqs.end(), [](const fb::OpT* dq) { return dq != nullptr; });
  if (!matched) return "";
  for (const fb::OpT* dq : dqs) {
    if (std::string why = match_input(c.graph, *dq); !why.empty()) return why;
  }
  Match m;
  if (std::string why = match_output(c.graph, c.consumers, op.outputs[0], m, false); !why.empty()) return why;
  auto folded = folded_op(op, fb::OpType::QLinearConcat, m, c.graph);
  set_attrs(*folded, attrs<fb::AxisAttrsT>(op));
  const std::string name = op.name;
  append_quantized(c, m, name + "/Y_zero_point", folded->inputs);
  for (size_t k = 0; k < dqs.size(); ++k) {
    append_dequantized(c, *dqs[k], name + "/X" + std::to_string(k) + "_zero_point", folded->inputs);
  }
  finish_fold(c.graph, m, std::move(folded), i);
  return "";
}

// AveragePool or GlobalAveragePool -> QLinearAveragePool or
// QLinearGlobalAveragePool.
std::string fold_average_pool(Context& c, size_t i, bool& matched) {
  const fb::OpT& op = *c.graph.ops[i];
  const fb::OpT* dq = dequantize_of(c, op.inputs[0]);
  matched = dq != nullptr;
  if (!matched) return "";
  if (std::string why = match_input(c.graph, *dq); !why.empty()) return why;
  Match m;
  if (std::string why = match_output(c.graph, c.consumers, op.outputs[0], m, false); !why.empty()) return why;
  const bool global = op.type == fb::OpType::GlobalAveragePool;
  auto folded =
      folded_op(op, global ? fb::OpType::QLinearGlobalAveragePool : fb::OpType::QLinearAveragePool, m, c.graph);
  if (!global) set_attrs(*folded, attrs<fb::PoolAttrsT>(op));
  const std::string name = op.name;
  append_dequantized(c, *dq, name + "/X_zero_point", folded->inputs);
  append_quantized(c, m, name + "/Y_zero_point", folded->inputs);
  finish_fold(c.graph, m, std::move(folded), i);
  return "";
}

// An activation (Relu, Clip with constant bounds, HardSwish, Sigmoid,
// LeakyRelu, HardSigmoid) -> QLinearActivation, the activation fused.
std::string fold_activation(Context& c, size_t i, bool& matched) {
  const fb::OpT& op = *c.graph.ops[i];
  const fb::OpT* dq = dequantize_of(c, op.inputs[0]);
  const std::optional<fb::FusedActivationT> act = as_fused(c.graph, op);
  matched = dq != nullptr && act.has_value() && op.outputs.size() == 1;
  if (!matched) return "";
  if (std::string why = match_input(c.graph, *dq); !why.empty()) return why;
  Match m;
  if (std::string why = match_output(c.graph, c.consumers, op.outputs[0], m, false); !why.empty()) return why;
  auto folded = folded_op(op, fb::OpType::QLinearActivation, m, c.graph);
  folded->fused = std::make_unique<fb::FusedActivationT>(*act);
  const std::string name = op.name;
  append_dequantized(c, *dq, name + "/X_zero_point", folded->inputs);
  append_quantized(c, m, name + "/Y_zero_point", folded->inputs);
  finish_fold(c.graph, m, std::move(folded), i);
  return "";
}

// A zero point's value, 0 when absent.
double zero_value(const Graph& g, const fb::OpT& q) {
  const Value* z = constant_input(g, q, 2);
  return z ? z->data->to_doubles()[0] : 0.0;
}

// Ops that run on 8-bit codes with X's scale and zero point kept.
bool runs_on_codes(const fb::OpT& op) {
  switch (op.type) {
    case fb::OpType::MaxPool:
      return op.outputs.size() == 1;  // not with Indices
    case fb::OpType::Resize:
      return resize_runs_on_codes(attrs<fb::ResizeAttrsT>(op));
    case fb::OpType::Reshape:
    case fb::OpType::Flatten:
    case fb::OpType::Transpose:
    case fb::OpType::Squeeze:
    case fb::OpType::Unsqueeze:
      return true;
    default:
      return false;
  }
}

// DQ -> op -> Q with equal parameters: the op on the 8-bit tensor.
std::string fold_pass_through(Context& c, size_t i, bool& matched) {
  const fb::OpT& op = *c.graph.ops[i];
  if (!runs_on_codes(op) || op.inputs.empty()) return "";
  const fb::OpT* dq = dequantize_of(c, op.inputs[0]);
  matched = dq != nullptr;
  if (!matched) return "";
  if (std::string why = match_input(c.graph, *dq); !why.empty()) return why;
  Match m;
  if (std::string why = match_output(c.graph, c.consumers, op.outputs[0], m, false); !why.empty()) return why;
  const fb::OpT& q = *c.graph.ops[static_cast<size_t>(m.quantize)];
  const bool same = dequantized_dtype(c.graph, *dq) == quantized_dtype(c.graph, q) &&
                    constant_input(c.graph, *dq, 1)->data->data<float>()[0] ==
                        constant_input(c.graph, q, 1)->data->data<float>()[0] &&
                    zero_value(c.graph, *dq) == zero_value(c.graph, q);
  if (!same) return "its QuantizeLinear requantises";
  auto folded = std::make_unique<fb::OpT>(op);  // attributes and other inputs as they are
  folded->inputs[0] = dq->inputs[0];
  folded->outputs = {q.outputs[0]};
  finish_fold(c.graph, m, std::move(folded), i);
  return "";
}

const char* folded_name(fb::OpType type) {
  switch (type) {
    case fb::OpType::Add:
      return "Add -> QLinearAdd";
    case fb::OpType::Mul:
      return "Mul -> QLinearMul";
    case fb::OpType::Concat:
      return "Concat -> QLinearConcat";
    case fb::OpType::AveragePool:
      return "AveragePool -> QLinearAveragePool";
    case fb::OpType::GlobalAveragePool:
      return "GlobalAveragePool -> QLinearGlobalAveragePool";
    case fb::OpType::Relu:
    case fb::OpType::Clip:
    case fb::OpType::HardSwish:
    case fb::OpType::Sigmoid:
    case fb::OpType::LeakyRelu:
    case fb::OpType::HardSigmoid:
      return "activation -> QLinearActivation";
    default:
      return nullptr;  // a pass-through op
  }
}

}  // namespace

Status fold_qdq_elementwise(Graph& graph, PassLog& log) {
  const std::vector<int> producers = graph.producers();
  const std::vector<std::vector<int>> consumers = graph.consumers();
  Context c{graph, producers, consumers};
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    if (!graph.ops[i]) continue;
    const fb::OpType type = graph.ops[i]->type;
    const std::string label = Graph::op_label(*graph.ops[i]);  // before the op is replaced
    bool matched = false;
    std::string why;
    switch (type) {
      case fb::OpType::Add:
      case fb::OpType::Mul:
        why = fold_binary(c, i, matched);
        break;
      case fb::OpType::Concat:
        why = fold_concat(c, i, matched);
        break;
      case fb::OpType::AveragePool:
      case fb::OpType::GlobalAveragePool:
        why = fold_average_pool(c, i, matched);
        break;
      case fb::OpType::Relu:
      case fb::OpType::Clip:
      case fb::OpType::HardSwish:
      case fb::OpType::Sigmoid:
      case fb::OpType::LeakyRelu:
      case fb::OpType::HardSigmoid:
        why = fold_activation(c, i, matched);
        break;
      default:
        why = fold_pass_through(c, i, matched);
        break;
    }
    if (!matched) continue;
    const char* kind = fb::EnumNameOpType(type);
    if (!why.empty()) {
      log.count(kPass, std::string(kind) + " left float: " + why);
      log.note(kPass, label + " stays float: " + why);
      continue;
    }
    const char* name = folded_name(type);
    log.count(kPass, name ? std::string(name) : std::string(kind) + " on 8-bit codes");
  }
  graph.compact();
  return {};
}

}  // namespace mote::convert
