// Copies of a loaded model's graph: into a TrainGraph (training and
// evaluation models, with chosen constants turned into graph inputs), and
// into a GraphBuilder with replaced constant values (saving trained models).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "mote/graph_builder.hpp"
#include "mote/model.hpp"
#include "runtime/train/train_graph.hpp"

namespace mote {

// What a training copy of the forward graph adds (copy_into_train_graph).
struct TrainingForward {
  // Per model tensor BatchNormalization reads as input_mean or input_var, the
  // tensor holding its updated (momentum-averaged) value.
  std::map<int, int> running_updates;
  // The "step" input (i64 scalar) training-mode Dropout ops read; created
  // after the listed constants when the model has Dropout, else -1.
  int step = -1;
};

// Copies the forward graph of `model` into `g` and returns, per tensor of the
// model, its index in `g`. Graph inputs get `input_shapes` (model input order);
// the constants listed in `params` become graph inputs, after the model's
// inputs and in that order; other constants stay constants. With
// `split_fused`, an op's fused activation becomes an op of its own, so the
// backward pass sees two ops with a gradient builder each, and recurrent ops
// are unrolled into per-step ops for the same reason (unroll_recurrent.hpp),
// as is NegativeLogLikelihoodLoss (losses.hpp's nll_loss). With `training`,
// BatchNormalization uses batch statistics and Dropout drops (training
// mode), and `training` receives the running updates and the step input.
Result<std::vector<int>> copy_into_train_graph(const Model& model, TrainGraph& g, const std::vector<Shape>& input_shapes,
                                               const std::vector<int>& params, bool split_fused,
                                               TrainingForward* training = nullptr);

// The model's graph, op for op and with its tensor names and metadata, with
// the data of the constants in `replaced` (tensor index -> new value, same
// dtype and shape) swapped in.
Result<GraphBuilder> copy_with_constants(const Model& model, const std::map<int, Tensor>& replaced);

}  // namespace mote
