#include "runtime/train/graph_copy.hpp"

#include <algorithm>

#include "runtime/core/attrs.hpp"
#include "runtime/train/losses.hpp"
#include "runtime/train/unroll_recurrent.hpp"

namespace mote {

namespace {

Tensor constant_view(const Model& model, int index) {
  const fb::TensorT& t = *model.graph().tensors[static_cast<size_t>(index)];
  return Tensor::borrow(t.dtype, t.shape, model.tensor_data(index));
}

// Emits `act` (an op's fused activation) as an op of its own on `x`.
int activation_op(TrainGraph& g, const fb::FusedActivationT& act, int x, const std::string& op_name) {
  switch (act.kind) {
    case fb::ActivationKind::None: return x;
    case fb::ActivationKind::Relu: return g.op1(fb::OpType::Relu, {x});
    case fb::ActivationKind::Sigmoid: return g.op1(fb::OpType::Sigmoid, {x});
    case fb::ActivationKind::HardSwish: return g.op1(fb::OpType::HardSwish, {x});
    case fb::ActivationKind::LeakyRelu: {
      fb::ActivationAttrsT a;
      a.alpha = act.alpha;
      return g.op1(fb::OpType::LeakyRelu, {x}, a);
    }
    case fb::ActivationKind::Clip: return g.op1(fb::OpType::Clip, {x, g.scalar(act.min), g.scalar(act.max)});
    case fb::ActivationKind::SiLU: return g.mul(x, g.op1(fb::OpType::Sigmoid, {x}));
    case fb::ActivationKind::HardSigmoid: {
      fb::ActivationAttrsT a;
      a.alpha = act.alpha;
      a.beta = act.beta;
      return g.op1(fb::OpType::HardSigmoid, {x}, a);
    }
  }
  return g.fail(unsupported(op_name + ": fused activation kind " + std::to_string(static_cast<int>(act.kind)) +
                            " cannot be split for training"));
}

}  // namespace

Result<std::vector<int>> copy_into_train_graph(const Model& model, TrainGraph& g, const std::vector<Shape>& input_shapes,
                                               const std::vector<int>& params, bool split_fused,
                                               TrainingForward* training) {
  const fb::GraphT& graph = model.graph();
  std::vector<int> map(graph.tensors.size(), -1);
  if (input_shapes.size() != graph.inputs.size()) {
    return invalid_argument("expected " + std::to_string(graph.inputs.size()) + " input shapes, got " +
                            std::to_string(input_shapes.size()));
  }
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const fb::TensorT& t = *graph.tensors[static_cast<size_t>(graph.inputs[i])];
    map[static_cast<size_t>(graph.inputs[i])] = g.input(t.name, t.dtype, input_shapes[i]);
  }
  for (int p : params) {
    const fb::TensorT& t = *graph.tensors[static_cast<size_t>(p)];
    map[static_cast<size_t>(p)] = g.input(t.name, t.dtype, t.shape);
  }
  if (training) {
    for (const auto& op : graph.ops) {
      if (op->type == fb::OpType::Dropout && training->step < 0) training->step = g.input("step", DType::I64, {});
    }
  }
  for (size_t i = 0; i < graph.tensors.size(); ++i) {
    if (map[i] < 0 && model.tensor_data(static_cast<int>(i))) {
      map[i] = g.constant(graph.tensors[i]->name, constant_view(model, static_cast<int>(i)));
    }
  }
  for (const auto& op : graph.ops) {
    std::vector<int> inputs;
    for (int in : op->inputs) {
      if (in >= 0 && map[static_cast<size_t>(in)] < 0) {
        return invalid_model(op->name + ": input tensor '" + graph.tensors[static_cast<size_t>(in)]->name +
                             "' is read before it is written");
      }
      inputs.push_back(in < 0 ? -1 : map[static_cast<size_t>(in)]);
    }
    const bool split = split_fused && op->fused && op->fused->kind != fb::ActivationKind::None;
    fb::OpT like = *op;
    if (split) like.fused.reset();
    // A Conv's fused residual (input 3) becomes an Add of its own, before
    // the activation, so each has its gradient.
    int residual = -1;
    if (split_fused && op->type == fb::OpType::Conv && inputs.size() > 3) {
      residual = inputs[3];
      inputs.resize(3);
      while (inputs.size() > 2 && inputs.back() < 0) inputs.pop_back();
    }
    int num_outputs = static_cast<int>(op->outputs.size());
    const bool batch_stats = training && op->type == fb::OpType::BatchNormalization;
    if (training && op->type == fb::OpType::Dropout) {
      fb::DropoutAttrsT dropout = attrs<fb::DropoutAttrsT>(*op);
      dropout.training_mode = true;
      set_attrs(like, std::move(dropout));
      inputs.resize(1);
      inputs.push_back(training->step);
    }
    if (batch_stats) {
      fb::NormAttrsT norm = attrs<fb::NormAttrsT>(*op);
      norm.training_mode = true;
      set_attrs(like, std::move(norm));
      num_outputs = 3;
    }
    const bool recurrent =
        op->type == fb::OpType::LSTM || op->type == fb::OpType::GRU || op->type == fb::OpType::RNN;
    std::vector<int> outs;
    if (split_fused && recurrent) {
      MOTE_ASSIGN_OR_RETURN(outs, unroll_recurrent(g, *op, inputs, num_outputs));
    } else if (split_fused && op->type == fb::OpType::NegativeLogLikelihoodLoss) {
      const auto& loss = attrs<fb::LossAttrsT>(*op);
      outs = {nll_loss(g, inputs[0], inputs[1], inputs.size() > 2 ? inputs[2] : -1, loss.reduction,
                       loss.has_ignore_index ? std::optional<int64_t>(loss.ignore_index) : std::nullopt)};
    } else {
      outs = g.op(op->type, inputs, num_outputs, &like, op->name);
    }
    if (residual >= 0) outs[0] = g.add(outs[0], residual);
    if (split) outs[0] = activation_op(g, *op->fused, outs[0], op->name);
    MOTE_RETURN_IF_ERROR(g.status());
    if (batch_stats) {
      training->running_updates[op->inputs[3]] = outs[1];
      training->running_updates[op->inputs[4]] = outs[2];
      outs.resize(op->outputs.size());
    }
    for (size_t j = 0; j < outs.size(); ++j) {
      map[static_cast<size_t>(op->outputs[j])] = outs[j];
      g.builder().set_tensor_name(outs[j], graph.tensors[static_cast<size_t>(op->outputs[j])]->name);
    }
  }
  return map;
}

Result<GraphBuilder> copy_with_constants(const Model& model, const std::map<int, Tensor>& replaced) {
  const fb::GraphT& graph = model.graph();
  GraphBuilder b;
  std::vector<int> map(graph.tensors.size(), -1);
  for (int in : graph.inputs) {
    const fb::TensorT& t = *graph.tensors[static_cast<size_t>(in)];
    map[static_cast<size_t>(in)] = b.add_input(t.name, t.dtype, t.shape);
  }
  for (size_t i = 0; i < graph.tensors.size(); ++i) {
    const int index = static_cast<int>(i);
    if (map[i] >= 0 || !model.tensor_data(index)) continue;
    auto found = replaced.find(index);
    const Tensor value = found != replaced.end() ? found->second : constant_view(model, index);
    if (value.dtype() != graph.tensors[i]->dtype || value.shape() != graph.tensors[i]->shape) {
      return invalid_argument("constant '" + graph.tensors[i]->name + "': replacement has dtype/shape " +
                              dtype_name(value.dtype()) + " " + shape_to_string(value.shape()) + ", the model " +
                              dtype_name(graph.tensors[i]->dtype) + " " + shape_to_string(graph.tensors[i]->shape));
    }
    map[i] = b.add_constant(graph.tensors[i]->name, value);
  }
  for (const auto& op : graph.ops) {
    std::vector<int> inputs;
    for (int in : op->inputs) inputs.push_back(in < 0 ? -1 : map[static_cast<size_t>(in)]);
    std::vector<int> outs = b.add_op(op->type, inputs, static_cast<int>(op->outputs.size()), op->name);
    fb::OpT& node = b.last_op();
    node.version = op->version;
    node.nn = op->nn;
    node.tensor = op->tensor;
    node.math = op->math;
    if (op->fused) node.fused = std::make_unique<fb::FusedActivationT>(*op->fused);
    for (size_t j = 0; j < outs.size(); ++j) {
      const fb::TensorT& t = *graph.tensors[static_cast<size_t>(op->outputs[j])];
      map[static_cast<size_t>(op->outputs[j])] = outs[j];
      b.set_tensor_name(outs[j], t.name);
      b.set_tensor_info(outs[j], t.dtype, t.shape);
    }
  }
  for (int out : graph.outputs) b.mark_output(map[static_cast<size_t>(out)]);
  for (const auto& entry : model.def().metadata) b.set_metadata(entry->key, entry->value);
  b.set_producer(model.def().producer);
  return b;
}

}  // namespace mote
