#include "converters/common/inline_body.hpp"

namespace mote::convert {

std::vector<int> inline_body(Graph& graph, Graph& body, const std::vector<int>& inputs, const std::string& prefix,
                             bool move_bodies) {
  std::vector<int> map(body.values.size(), -1);
  for (size_t k = 0; k < body.inputs.size() && k < inputs.size(); ++k) map[static_cast<size_t>(body.inputs[k])] = inputs[k];
  auto parent_value = [&](int v) {
    if (v < 0) return -1;
    int& m = map[static_cast<size_t>(v)];
    if (m >= 0) return m;
    const Value& value = body.values[static_cast<size_t>(v)];
    if (value.is_constant()) {
      m = graph.add_derived_constant(prefix + value.name, *value.data);
    } else {
      m = graph.add_derived_value(prefix + value.name);
      Value& copy = graph.values[static_cast<size_t>(m)];
      const Value& source = body.values[static_cast<size_t>(v)];
      copy.dtype_known = source.dtype_known;
      copy.dtype = source.dtype;
      copy.rank_known = source.rank_known;
      copy.shape = source.shape;
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
    if (!move_bodies) continue;
    for (uint32_t& s : copy.subgraphs) {
      graph.subgraphs.push_back(std::move(body.subgraphs[s]));
      s = static_cast<uint32_t>(graph.subgraphs.size() - 1);
    }
  }
  std::vector<int> results;
  for (int v : body.outputs) results.push_back(parent_value(v));
  return results;
}

}  // namespace mote::convert
