// Gradient builders: for one forward op of a training graph, the ops that
// compute the gradients of its inputs from the gradients of its outputs.
// Builders emit ordinary ops into the same TrainGraph, so the backward pass
// plans, runs and places (CPU or Vulkan) like any other graph.
//
// One builder per op type, beside the op's definition in
// runtime/ops/<family>_grad.cpp, registered on one line:
//   MOTE_GRAD(Relu, relu_grad);
// cmake/generate_registry.py finds these lines; find_grad_builder() looks them up.
#pragma once

#include <string>
#include <vector>

#include "runtime/core/attrs.hpp"
#include "runtime/train/train_graph.hpp"

namespace mote {

struct GradContext {
  TrainGraph& g;
  // The forward op, as it stands in the training graph.
  const fb::OpT& op;
  // Per op output: the tensor holding d(loss)/d(output), or -1 when the loss
  // does not depend on that output.
  std::vector<int> grad_outputs;
  // Per op input: whether the caller needs its gradient.
  std::vector<bool> needs;
  // Filled by the builder: per op input, the gradient tensor or -1.
  std::vector<int> grad_inputs;

  int in(size_t i) const { return i < op.inputs.size() ? op.inputs[i] : -1; }
  int out(size_t i) const { return op.outputs[i]; }
  int dy(size_t i = 0) const { return grad_outputs[i]; }
  bool wants(size_t i) const { return i < needs.size() && needs[i] && op.inputs[i] >= 0; }
  void set(size_t i, int grad) {
    if (wants(i)) grad_inputs[i] = grad;
  }
  // An error naming the op: "Conv 'conv1': gradient: <message>".
  Status fail(const std::string& message) const;
};

using GradFn = Status (*)(GradContext& ctx);

struct GradBuilder {
  GradFn build = nullptr;
};

// Builders for ops that only move data: the gradient of input 0 is the
// output gradient reshaped back (Reshape, Flatten, Squeeze, Unsqueeze, Identity).
Status reshape_like_input_grad(GradContext& ctx);

}  // namespace mote

#define MOTE_GRAD(OP, FN)                                      \
  namespace mote::registered {                                 \
  extern const ::mote::GradBuilder grad_builder_##OP;          \
  const ::mote::GradBuilder grad_builder_##OP{FN};             \
  }
