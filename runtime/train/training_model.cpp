#include "runtime/train/training_model.hpp"

#include <set>

#include "runtime/train/autodiff.hpp"
#include "runtime/train/graph_copy.hpp"
#include "runtime/train/losses.hpp"
#include "runtime/train/optimizers.hpp"

namespace mote {
namespace {

// Per forward op of `g` (the ops there now), the checkpointed segment it
// belongs to, or -1 for the last segment, which is never recomputed (its
// backward pass follows the forward pass directly).
std::vector<int> recompute_segments(const TrainGraph& g, const std::vector<int>& map, const TrainingModelSpec& spec) {
  if (spec.checkpoints.empty() && spec.checkpoint_every <= 0) return {};
  std::set<int> boundaries;  // the checkpoint tensors in the training graph
  for (int t : spec.checkpoints) boundaries.insert(map[static_cast<size_t>(t)]);
  std::vector<int> segment(g.ops().size(), 0);
  int current = 0;
  for (size_t j = 0; j < g.ops().size(); ++j) {
    segment[j] = current;
    bool cut = spec.checkpoint_every > 0 && (j + 1) % static_cast<size_t>(spec.checkpoint_every) == 0;
    for (int out : g.ops()[j]->outputs) cut = cut || boundaries.count(out) > 0;
    current += cut ? 1 : 0;
  }
  for (int& s : segment) s = s == current ? -1 : s;
  return segment;
}

}  // namespace

Result<std::vector<uint8_t>> build_training_model(const Model& model, const TrainingModelSpec& spec) {
  const fb::GraphT& graph = model.graph();
  if (spec.output < 0 || spec.output >= static_cast<int>(graph.outputs.size())) {
    return invalid_argument("model has no output #" + std::to_string(spec.output));
  }
  TrainGraph g;
  std::vector<int> graph_inputs = spec.params;
  graph_inputs.insert(graph_inputs.end(), spec.running_stats.begin(), spec.running_stats.end());
  TrainingForward training;
  MOTE_ASSIGN_OR_RETURN(std::vector<int> map, copy_into_train_graph(model, g, spec.input_shapes, graph_inputs,
                                                                    /*split_fused=*/true, &training));
  const std::vector<int> segments = recompute_segments(g, map, spec);
  const int prediction = map[static_cast<size_t>(graph.outputs[static_cast<size_t>(spec.output)])];
  const int labels = g.input("labels", spec.label_dtype, spec.label_shape);
  OptimizerInputs opt_in;
  opt_in.learning_rate = g.input("learning_rate", DType::F32, {});
  if (spec.optimizer.kind == OptimizerKind::kAdamW) {
    opt_in.bias_correction1 = g.input("bias_correction1", DType::F32, {});
    opt_in.bias_correction2 = g.input("bias_correction2", DType::F32, {});
  }
  const std::vector<std::string> state_names = optimizer_state_names(spec.optimizer);
  std::vector<std::vector<int>> states;
  for (int p : spec.params) {
    const fb::TensorT& t = *graph.tensors[static_cast<size_t>(p)];
    states.emplace_back();
    for (const auto& s : state_names) states.back().push_back(g.input(t.name + "/" + s, DType::F32, t.shape));
  }

  const int loss = build_loss(g, spec.loss, prediction, labels);
  MOTE_RETURN_IF_ERROR(g.status());
  std::vector<int> wrt;
  for (int p : spec.params) wrt.push_back(map[static_cast<size_t>(p)]);
  // Each parameter is updated as soon as its gradient is complete, so the
  // gradient dies there rather than living until the backward pass ends.
  std::vector<int> new_params(wrt.size(), -1);
  std::vector<std::vector<int>> new_param_states(wrt.size());
  auto update = [&](size_t i, int grad) {
    new_params[i] = build_update(g, spec.optimizer, opt_in, wrt[i], grad, states[i], new_param_states[i]);
  };
  MOTE_RETURN_IF_ERROR(build_gradients(g, loss, wrt, segments, update).status());
  std::vector<int> new_states;
  for (const auto& per_param : new_param_states) new_states.insert(new_states.end(), per_param.begin(), per_param.end());
  MOTE_RETURN_IF_ERROR(g.status());
  g.builder().mark_output(loss, "loss");
  for (size_t i = 0; i < new_params.size(); ++i) {
    g.builder().mark_output(new_params[i], graph.tensors[static_cast<size_t>(spec.params[i])]->name + "/updated");
  }
  for (size_t i = 0; i < new_states.size(); ++i) {
    const std::string& param = graph.tensors[static_cast<size_t>(spec.params[i / state_names.size()])]->name;
    g.builder().mark_output(new_states[i], param + "/" + state_names[i % state_names.size()] + "/updated");
  }
  for (int stat : spec.running_stats) {
    auto found = training.running_updates.find(stat);
    const std::string& name = graph.tensors[static_cast<size_t>(stat)]->name;
    if (found == training.running_updates.end()) return internal_error("running statistics '" + name + "' have no update");
    g.builder().mark_output(found->second, name + "/updated");
  }
  g.builder().set_producer("mote TrainingSession");
  return g.builder().serialize();
}

bool has_dropout(const Model& model) {
  for (const auto& op : model.graph().ops) {
    if (op->type == fb::OpType::Dropout) return true;
  }
  return false;
}

Result<std::vector<uint8_t>> build_eval_model(const Model& model, const std::vector<Shape>& input_shapes,
                                              const std::vector<int>& params, const std::vector<int>& running_stats) {
  TrainGraph g;
  std::vector<int> graph_inputs = params;
  graph_inputs.insert(graph_inputs.end(), running_stats.begin(), running_stats.end());
  MOTE_ASSIGN_OR_RETURN(std::vector<int> map,
                        copy_into_train_graph(model, g, input_shapes, graph_inputs, /*split_fused=*/false));
  for (int out : model.graph().outputs) {
    g.builder().mark_output(map[static_cast<size_t>(out)], model.graph().tensors[static_cast<size_t>(out)]->name);
  }
  return g.builder().serialize();
}

}  // namespace mote
