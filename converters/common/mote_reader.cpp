#include "converters/common/mote_reader.hpp"

#include <cstring>

#include "mote/model.hpp"

namespace mote::convert {

Result<Graph> read_mote_graph(const std::string& path) {
  MOTE_ASSIGN_OR_RETURN(std::shared_ptr<const Model> model, Model::load(path));
  const fb::GraphT& source = model->graph();
  if (!source.subgraphs.empty()) {
    return unsupported(path + ": models with control flow (If, Loop, Scan) cannot be read back yet");
  }
  Graph graph;
  graph.producer = model->def().producer;
  for (const auto& entry : model->def().metadata) graph.metadata.emplace_back(entry->key, entry->value);
  // Values keep the file's tensor indices: each tensor is added in order.
  for (size_t i = 0; i < source.tensors.size(); ++i) {
    const fb::TensorT& t = *source.tensors[i];
    const int index = static_cast<int>(i);
    int added;
    if (const void* data = model->tensor_data(index)) {
      Tensor copy = Tensor::zeros(t.dtype, t.shape);
      std::memcpy(copy.raw(), data, copy.bytes());
      added = graph.add_constant(t.name, std::move(copy));
    } else {
      added = graph.add_value(t.name);
      graph.values.back().set_info(t.dtype, t.shape);
    }
    if (added != index || graph.values.back().name != t.name) {
      return invalid_model(path + ": tensor " + std::to_string(i) + " ('" + t.name + "') repeats an earlier name");
    }
  }
  graph.inputs.assign(source.inputs.begin(), source.inputs.end());
  graph.outputs.assign(source.outputs.begin(), source.outputs.end());
  for (const auto& op : source.ops) {
    fb::OpT& copy = graph.add_op(op->type, op->name, op->inputs, op->outputs);
    copy = *op;
  }
  return graph;
}

}  // namespace mote::convert
