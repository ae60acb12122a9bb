// An If whose condition is known at conversion time (a constant, or one that
// fold_constants made constant: a branch on a static shape, the usual case in
// exports) is replaced by the ops of the branch it takes. The branch's inputs
// are its captures, so they map to the If's capture inputs; its constants are
// copied in; its outputs are written to the If's outputs through Identity
// ops, which remove_identities then dissolves.
#include <unordered_map>

#include "converters/common/passes.hpp"

namespace mote::convert {
namespace {

constexpr const char* kPass = "fold_if";

// Appends the ops of `body` to `graph` (in order), reading `inputs` for the
// body's inputs and writing `outputs` for its outputs.
void inline_body(Graph& graph, Graph& body, const std::vector<int>& inputs, const std::vector<int>& outputs,
                 const std::string& prefix) {
  std::vector<int> map(body.values.size(), -1);
  for (size_t k = 0; k < body.inputs.size(); ++k) map[static_cast<size_t>(body.inputs[k])] = inputs[k];
  auto parent_value = [&](int v) {
    if (v < 0) return -1;
    int& m = map[static_cast<size_t>(v)];
    if (m >= 0) return m;
    Value& value = body.values[static_cast<size_t>(v)];
    if (value.is_constant()) {
      m = graph.add_derived_constant(prefix + value.name, *value.data);
    } else {
      m = graph.add_derived_value(prefix + value.name);
      Value& copy = graph.values[static_cast<size_t>(m)];
      copy.dtype_known = value.dtype_known;
      copy.dtype = value.dtype;
      copy.rank_known = value.rank_known;
      copy.shape = value.shape;
    }
    return m;
  };
  for (auto& op : body.ops) {
    if (!op) continue;
    std::vector<int> ins, outs;
    for (int v : op->inputs) ins.push_back(parent_value(v));
    for (int v : op->outputs) outs.push_back(parent_value(v));
    fb::OpT& copy = graph.add_op(op->type, prefix + op->name, std::move(ins), std::move(outs));
    std::vector<int32_t> copy_inputs = std::move(copy.inputs), copy_outputs = std::move(copy.outputs);
    std::string name = std::move(copy.name);
    copy = *op;  // attributes, version, fused activation
    copy.inputs = std::move(copy_inputs);
    copy.outputs = std::move(copy_outputs);
    copy.name = std::move(name);
    // A nested control-flow op brings its own bodies along.
    for (uint32_t& s : copy.subgraphs) {
      graph.subgraphs.push_back(std::move(body.subgraphs[s]));
      s = static_cast<uint32_t>(graph.subgraphs.size() - 1);
    }
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    graph.add_op(fb::OpType::Identity, prefix + "output_" + std::to_string(k), {parent_value(body.outputs[k])},
                 {outputs[k]});
  }
}

}  // namespace

Status fold_if(Graph& graph, PassLog& log, bool& changed) {
  changed = false;
  std::vector<std::unique_ptr<fb::OpT>> old = std::move(graph.ops);
  graph.ops.clear();
  for (auto& op : old) {
    const bool foldable = op && op->type == fb::OpType::If && !op->inputs.empty() &&
                          graph.values[static_cast<size_t>(op->inputs[0])].is_constant() && op->subgraphs.size() == 2;
    if (!foldable) {
      graph.ops.push_back(std::move(op));
      continue;
    }
    const Tensor& cond = *graph.values[static_cast<size_t>(op->inputs[0])].data;
    if (cond.numel() != 1) {
      graph.ops.push_back(std::move(op));  // the runtime reports it
      continue;
    }
    const bool taken = cond.to_doubles()[0] != 0;
    const auto& captures = attrs<fb::ControlFlowAttrsT>(*op).body_captures;
    const size_t b = taken ? 0 : 1;
    size_t first = 1 + (b == 1 && !captures.empty() ? static_cast<size_t>(captures[0]) : 0);
    size_t count = b < captures.size() ? static_cast<size_t>(captures[b]) : 0;
    std::vector<int> inputs(op->inputs.begin() + static_cast<std::ptrdiff_t>(first),
                            op->inputs.begin() + static_cast<std::ptrdiff_t>(first + count));
    Graph& body = *graph.subgraphs[op->subgraphs[b]];
    inline_body(graph, body, inputs, op->outputs, op->name + (taken ? "/then/" : "/else/"));
    log.count(kPass, "If folded");
    log.note(kPass, "folded " + Graph::op_label(*op) + ": the condition is always " + (taken ? "true" : "false"));
    changed = true;
  }
  return {};
}

}  // namespace mote::convert
