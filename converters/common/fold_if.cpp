// An If whose condition is known at conversion time (a constant, or one that
// fold_constants made constant: a branch on a static shape, the usual case in
// exports) is replaced by the ops of the branch it takes. The branch's inputs
// are its captures, so they map to the If's capture inputs; its constants are
// copied in; its outputs are written to the If's outputs through Identity
// ops, which remove_identities then dissolves.
#include "converters/common/inline_body.hpp"
#include "converters/common/passes.hpp"

namespace mote::convert {
namespace {

constexpr const char* kPass = "fold_if";

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
    if (inputs.size() != body.inputs.size()) {
      graph.ops.push_back(std::move(op));  // malformed: the runtime reports it
      continue;
    }
    const std::string prefix = op->name + (taken ? "/then/" : "/else/");
    const std::vector<int> results = inline_body(graph, body, inputs, prefix, /*move_bodies=*/true);
    for (size_t k = 0; k < results.size(); ++k) {
      graph.add_op(fb::OpType::Identity, prefix + "output_" + std::to_string(k), {results[k]}, {op->outputs[k]});
    }
    log.count(kPass, "If folded");
    log.note(kPass, "folded " + Graph::op_label(*op) + ": the condition is always " + (taken ? "true" : "false"));
    changed = true;
  }
  return {};
}

}  // namespace mote::convert
