// Identity removal: readers of an Identity's output read its input instead.
// When the output is a graph output, the input takes over the output's
// name, unless the input is itself a graph input or output (both names must
// survive): then the Identity stays.
#include "converters/common/passes.hpp"

namespace mote::convert {

Status remove_identities(Graph& graph, PassLog& log) {
  for (auto& slot : graph.ops) {
    if (!slot || slot->type != fb::OpType::Identity) continue;
    const fb::OpT& op = *slot;
    if (op.inputs.size() != 1 || op.outputs.size() != 1 || op.inputs[0] < 0) continue;
    int in = op.inputs[0];
    int out = op.outputs[0];
    if (graph.is_output(out)) {
      if (graph.is_input(in) || graph.is_output(in)) continue;
      Value& source = graph.values[static_cast<size_t>(in)];
      Value& target = graph.values[static_cast<size_t>(out)];
      // The source now carries the output's name; swap so names stay unique.
      std::swap(source.name, target.name);
      for (int& v : graph.outputs) {
        if (v == out) v = in;
      }
    }
    graph.replace_uses(out, in);
    log.note("remove_identities", "removed " + Graph::op_label(op));
    log.count("remove_identities", "Identity removed");
    slot.reset();
  }
  graph.compact();
  return {};
}

}  // namespace mote::convert
