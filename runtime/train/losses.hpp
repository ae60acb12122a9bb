// Losses built from existing ops, each reducing to a scalar mean over the batch.
#pragma once

#include "mote/training.hpp"
#include "runtime/train/train_graph.hpp"

namespace mote {

// The scalar loss of `prediction` against `labels` (see LossKind for the
// shapes and dtypes each expects); -1 with g.status() set on error.
int build_loss(TrainGraph& g, LossKind kind, int prediction, int labels);

}  // namespace mote
