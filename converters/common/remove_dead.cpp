// Dead-op removal: an op none of whose outputs is read (by a later op or as
// a graph output) is dropped; walking backwards removes whole dead chains in
// one pass. compact() then drops the values nothing refers to, unused
// weights included.
#include "converters/common/passes.hpp"

namespace mote::convert {

Status remove_dead(Graph& graph, PassLog& log) {
  std::vector<int> uses(graph.values.size(), 0);
  for (int v : graph.outputs) ++uses[static_cast<size_t>(v)];
  for (const auto& op : graph.ops) {
    if (!op) continue;
    for (int v : op->inputs) {
      if (v >= 0) ++uses[static_cast<size_t>(v)];
    }
  }
  for (size_t i = graph.ops.size(); i-- > 0;) {
    auto& op = graph.ops[i];
    if (!op) continue;
    bool live = false;
    for (int v : op->outputs) live = live || uses[static_cast<size_t>(v)] > 0;
    if (live) continue;
    for (int v : op->inputs) {
      if (v >= 0) --uses[static_cast<size_t>(v)];
    }
    log.note("remove_dead", "removed " + Graph::op_label(*op));
    log.count("remove_dead", "ops removed");
    op.reset();
  }
  size_t constants_before = 0, constants_after = 0;
  for (const Value& v : graph.values) constants_before += v.is_constant();
  graph.compact();
  for (const Value& v : graph.values) constants_after += v.is_constant();
  if (constants_before > constants_after) {
    log.count("remove_dead", "constants dropped", static_cast<int64_t>(constants_before - constants_after));
  }
  return {};
}

}  // namespace mote::convert
