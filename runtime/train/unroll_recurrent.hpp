// RNN, GRU and LSTM in a training graph, written out as the ops of each
// time step (MatMul, Add, Slice, Sigmoid, Tanh, Mul, Concat...). Each of
// those has a gradient builder and a kernel on both backends, so a recurrent
// model trains on the CPU and on Vulkan through backpropagation through
// time without a recurrent gradient kernel of its own. The cost is graph
// size: about twenty ops per step and direction for an LSTM, fine for the
// short windows fine-tuning uses (a keyword spotter's 100 frames), and the
// forward pass of training runs those ops rather than the fused kernel.
#pragma once

#include <vector>

#include "mote/status.hpp"
#include "runtime/core/attrs.hpp"
#include "runtime/train/train_graph.hpp"

namespace mote {

// The outputs of recurrent `op` (Y, Y_h and, for LSTM, Y_c; as many as
// `num_outputs`) computed from `inputs` (the op's inputs as tensors of `g`,
// -1 where omitted) by per-step ops added to `g`. Supported: every
// direction and layout, biases, initial states, peepholes, input_forget and
// both GRU reset forms with ONNX's default gate functions; other gate
// functions, clip and sequence_lens are refused with a message naming the op.
Result<std::vector<int>> unroll_recurrent(TrainGraph& g, const fb::OpT& op, const std::vector<int>& inputs,
                                          int num_outputs);

}  // namespace mote
