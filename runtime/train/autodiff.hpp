// Reverse-mode automatic differentiation over a TrainGraph: walks the ops
// added so far from last to first and, for every op on a path from the
// requested tensors to the loss, calls its gradient builder
// (find_grad_builder) to append the ops computing its inputs' gradients.
// Gradients of a tensor read by several ops are summed with Add.
#pragma once

#include <functional>
#include <vector>

#include "mote/status.hpp"
#include "runtime/train/train_graph.hpp"

namespace mote {

// Appends the backward graph of `loss` (any shape; its gradient is seeded
// with ones) and returns, per tensor of `wrt`, the tensor holding
// d(sum of loss)/d(wrt[i]), of wrt[i]'s shape. A tensor the loss does not
// depend on gets a zero gradient. Ops with a fused activation must have been
// split into two ops first (their gradients are separate builders).
//
// Gradient checkpointing: `recompute_segment`, when not empty, gives per op
// already in `g` (in g.ops() order) a segment number, or -1. The ops of a
// segment are added again (recomputed) just before the backward ops of that
// segment, and those backward ops read the recomputed tensors; so the forward
// intermediates of the segment die as soon as the forward pass is done with
// them, and only the tensors entering a segment stay alive until its
// backward pass. Memory for time: each recomputed op runs twice.
//
// `on_final(i, grad)`, when given, is called as soon as the gradient of
// wrt[i] is complete (the walk has passed every op reading wrt[i]): ops it
// adds run there, in the middle of the backward pass, so an optimizer update
// placed there frees the gradient at once instead of holding every gradient
// until the end of the pass.
using GradientReady = std::function<void(size_t wrt_index, int grad)>;
Result<std::vector<int>> build_gradients(TrainGraph& g, int loss, const std::vector<int>& wrt,
                                         const std::vector<int>& recompute_segment = {},
                                         const GradientReady& on_final = {});

}  // namespace mote
