// Reverse-mode automatic differentiation over a TrainGraph: walks the ops
// added so far from last to first and, for every op on a path from the
// requested tensors to the loss, calls its gradient builder
// (find_grad_builder) to append the ops computing its inputs' gradients.
// Gradients of a tensor read by several ops are summed with Add.
#pragma once

#include <vector>

#include "mote/status.hpp"
#include "runtime/train/train_graph.hpp"

namespace mote {

// Appends the backward graph of `loss` (any shape; its gradient is seeded
// with ones) and returns, per tensor of `wrt`, the tensor holding
// d(sum of loss)/d(wrt[i]), of wrt[i]'s shape. A tensor the loss does not
// depend on gets a zero gradient. Ops with a fused activation must have been
// split into two ops first (their gradients are separate builders).
Result<std::vector<int>> build_gradients(TrainGraph& g, int loss, const std::vector<int>& wrt);

}  // namespace mote
