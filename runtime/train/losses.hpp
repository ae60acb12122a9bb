// Losses built from existing ops, each reducing to a scalar mean over the batch.
#pragma once

#include <optional>

#include "mote/training.hpp"
#include "runtime/train/train_graph.hpp"

namespace mote {

// The scalar loss of `prediction` against `labels` (see LossKind for the
// shapes and dtypes each expects); -1 with g.status() set on error.
int build_loss(TrainGraph& g, LossKind kind, int prediction, int labels);

// NegativeLogLikelihoodLoss from ops that train on both backends (one-hot
// Equal and Cast, Mul, ReduceSum): log_probs [N, C, d...], integer target
// [N, d...], weight [C] or -1, ONNX's reductions and ignore_index. The
// softmax cross-entropy loss and the NLL op of a model being trained (what
// ONNX's SoftmaxCrossEntropyLoss converts to, after a LogSoftmax) are both
// this.
int nll_loss(TrainGraph& g, int log_probs, int target, int weight, fb::LossReduction reduction,
             std::optional<int64_t> ignore_index);

}  // namespace mote
