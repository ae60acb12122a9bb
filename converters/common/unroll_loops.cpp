// A Loop with a small trip count known at conversion time, whose body keeps
// its condition true, becomes that many copies of its body: no per-iteration
// plan run at run time, and the copies fold and fuse with their neighbours.
// "Small": at most kMaxTrips iterations and kMaxOps copied ops in all; a
// longer loop stays a Loop, where one plan serves every iteration. Bodies
// holding control flow of their own stay too.
#include "converters/common/inline_body.hpp"
#include "converters/common/passes.hpp"

namespace mote::convert {
namespace {

constexpr const char* kPass = "unroll_loops";
constexpr int64_t kMaxTrips = 16;
constexpr size_t kMaxOps = 256;

bool constant_true(const Graph& g, int v) {
  if (v < 0) return true;  // an omitted condition
  const Value& value = g.values[static_cast<size_t>(v)];
  return value.is_constant() && value.data->numel() == 1 && value.data->to_doubles()[0] != 0;
}

// The body's condition output is its condition input (directly or through
// an Identity) or a constant true.
bool keeps_condition(const Graph& body) {
  if (body.inputs.size() < 2 || body.outputs.empty()) return false;
  const int out = body.outputs[0], in = body.inputs[1];
  if (out == in || constant_true(body, out)) return true;
  for (const auto& op : body.ops) {
    if (op && op->type == fb::OpType::Identity && op->outputs[0] == out && op->inputs[0] == in) return true;
  }
  return false;
}

// The trip count when the Loop can be unrolled, else -1.
int64_t unrollable_trips(const Graph& graph, const fb::OpT& op) {
  if (op.type != fb::OpType::Loop || op.subgraphs.size() != 1 || op.inputs.size() < 2 || op.inputs[0] < 0) return -1;
  const Value& m = graph.values[static_cast<size_t>(op.inputs[0])];
  if (!m.is_constant() || m.data->numel() != 1 || !constant_true(graph, op.inputs[1])) return -1;
  const int64_t trips = m.data->to_int64s()[0];
  const Graph& body = *graph.subgraphs[op.subgraphs[0]];
  if (trips < 1 || trips > kMaxTrips || !body.subgraphs.empty() || !keeps_condition(body)) return -1;
  if (static_cast<size_t>(trips) * body.op_count() > kMaxOps) return -1;
  if (body.inputs.size() != op.inputs.size() || body.outputs.size() != op.outputs.size() + 1) return -1;
  const auto& captures = attrs<fb::ControlFlowAttrsT>(op).body_captures;
  const int64_t carried = static_cast<int64_t>(op.inputs.size()) - 2 - (captures.empty() ? 0 : captures[0]);
  if (carried < 0 || carried > static_cast<int64_t>(op.outputs.size())) return -1;
  return trips;
}

}  // namespace

Status unroll_loops(Graph& graph, PassLog& log, bool& changed) {
  changed = false;
  std::vector<std::unique_ptr<fb::OpT>> old = std::move(graph.ops);
  graph.ops.clear();
  for (auto& op : old) {
    const int64_t trips = op ? unrollable_trips(graph, *op) : -1;
    if (trips < 0) {
      graph.ops.push_back(std::move(op));
      continue;
    }
    Graph& body = *graph.subgraphs[op->subgraphs[0]];
    // Op inputs [M, cond, carried..., captures...]; op outputs [carried..., scans...].
    const auto& captures = attrs<fb::ControlFlowAttrsT>(*op).body_captures;
    const size_t n_carried = op->inputs.size() - 2 - static_cast<size_t>(captures.empty() ? 0 : captures[0]);
    const size_t n_scans = op->outputs.size() - n_carried;
    std::vector<int> state(op->inputs.begin() + 2, op->inputs.end());  // carried, then captures
    std::vector<std::vector<int>> scans(n_scans);
    Tensor yes = Tensor::zeros(DType::Bool, {});
    *yes.data<bool>() = true;
    const int cond = graph.add_derived_constant(op->name + "/cond", yes);
    for (int64_t i = 0; i < trips; ++i) {
      const std::string prefix = op->name + "/" + std::to_string(i) + "/";
      std::vector<int> inputs{graph.add_derived_constant(prefix + "i", Tensor::from_vector<int64_t>({}, {i})), cond};
      inputs.insert(inputs.end(), state.begin(), state.end());
      const std::vector<int> outs = inline_body(graph, body, inputs, prefix, /*move_bodies=*/false);
      for (size_t k = 0; k < n_carried; ++k) state[k] = outs[1 + k];
      for (size_t k = 0; k < n_scans; ++k) scans[k].push_back(outs[1 + n_carried + k]);
    }
    for (size_t k = 0; k < n_carried; ++k) {
      graph.add_op(fb::OpType::Identity, op->name + "/carried_" + std::to_string(k), {state[k]}, {op->outputs[k]});
    }
    const int axis0 = graph.add_derived_constant(op->name + "/axis0", Tensor::from_vector<int64_t>({1}, {0}));
    for (size_t k = 0; k < n_scans; ++k) {
      std::vector<int> rows;
      for (size_t i = 0; i < scans[k].size(); ++i) {
        const std::string name = op->name + "/scan_" + std::to_string(k) + "_" + std::to_string(i);
        rows.push_back(graph.add_derived_value(name));
        graph.add_op(fb::OpType::Unsqueeze, name, {scans[k][i], axis0}, {rows.back()});
      }
      fb::AxisAttrsT concat;
      concat.axis = 0;
      set_attrs(graph.add_op(fb::OpType::Concat, op->name + "/scan_" + std::to_string(k), rows, {op->outputs[n_carried + k]}),
                concat);
    }
    log.count(kPass, "Loops unrolled");
    log.note(kPass, "unrolled " + Graph::op_label(*op) + " (" + std::to_string(trips) + " iterations)");
    changed = true;
  }
  return {};
}

}  // namespace mote::convert
