#include "runtime/train/trainable.hpp"

#include <regex>

#include "runtime/core/registry.hpp"

namespace mote {

namespace {

bool is_running_stat(const fb::OpT& op, size_t input) {
  return op.type == fb::OpType::BatchNormalization && (input == 3 || input == 4);
}

}  // namespace

Result<std::vector<int>> select_running_stats(const Model& model) {
  const fb::GraphT& graph = model.graph();
  std::vector<int> readers(graph.tensors.size(), 0);
  std::vector<bool> stat(graph.tensors.size(), false);
  for (const auto& op : graph.ops) {
    for (size_t i = 0; i < op->inputs.size(); ++i) {
      const int in = op->inputs[i];
      if (in < 0) continue;
      ++readers[static_cast<size_t>(in)];
      if (is_running_stat(*op, i)) stat[static_cast<size_t>(in)] = true;
    }
  }
  std::vector<int> result;
  for (size_t i = 0; i < graph.tensors.size(); ++i) {
    if (!stat[i]) continue;
    const fb::TensorT& t = *graph.tensors[i];
    if (!model.tensor_data(static_cast<int>(i)) || t.dtype != DType::F32) {
      return unsupported("BatchNormalization statistics '" + t.name +
                         "' must be f32 constants to be updated in training");
    }
    if (readers[i] != 1) {
      return unsupported("BatchNormalization statistics '" + t.name + "' are read by " + std::to_string(readers[i]) +
                         " ops; training updates them for one BatchNormalization only");
    }
    result.push_back(static_cast<int>(i));
  }
  return result;
}

Result<std::vector<int>> select_trainable(const Model& model, const TrainingOptions& options) {
  const fb::GraphT& graph = model.graph();
  const size_t n = graph.tensors.size();
  std::vector<bool> read_as_data(n, false), read_as_value(n, false), downstream(n, options.trainable_after.empty());

  int after = -1;
  if (!options.trainable_after.empty()) {
    after = model.find_tensor(options.trainable_after);
    if (after < 0) return not_found("trainable_after: the model has no tensor '" + options.trainable_after + "'");
    downstream[static_cast<size_t>(after)] = true;
  }
  for (const auto& op : graph.ops) {
    const OpDef* def = find_op_def(op->type);
    bool op_downstream = options.trainable_after.empty();
    for (size_t i = 0; i < op->inputs.size(); ++i) {
      int in = op->inputs[i];
      if (in < 0) continue;
      op_downstream = op_downstream || downstream[static_cast<size_t>(in)];
      const bool value_input = def && i < 32 && (def->value_inputs >> i) & 1u;
      (value_input || is_running_stat(*op, i) ? read_as_value : read_as_data)[static_cast<size_t>(in)] = true;
    }
    if (!op_downstream) continue;
    for (int out : op->outputs) downstream[static_cast<size_t>(out)] = true;
    // The constants this op reads are after the named tensor too.
    for (int in : op->inputs) {
      if (in >= 0 && model.tensor_data(in)) downstream[static_cast<size_t>(in)] = true;
    }
  }

  std::regex pattern;
  if (!options.trainable_regex.empty()) {
    try {
      pattern = std::regex(options.trainable_regex);
    } catch (const std::regex_error& e) {
      return invalid_argument("trainable_regex '" + options.trainable_regex + "': " + e.what());
    }
  }
  std::vector<int> result;
  for (size_t i = 0; i < n; ++i) {
    const fb::TensorT& t = *graph.tensors[i];
    if (!model.tensor_data(static_cast<int>(i)) || t.dtype != DType::F32 || t.shape.empty()) continue;
    if (!read_as_data[i] || read_as_value[i] || !downstream[i]) continue;
    if (!options.trainable_regex.empty() && !std::regex_search(t.name, pattern)) continue;
    result.push_back(static_cast<int>(i));
  }
  if (result.empty()) return invalid_argument("no trainable constants match the training options");
  return result;
}

}  // namespace mote
