#include "runtime/train/trainable.hpp"

#include <regex>

#include "runtime/core/registry.hpp"

namespace mote {

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
      (value_input ? read_as_value : read_as_data)[static_cast<size_t>(in)] = true;
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
