// The geometry of RNN, GRU and LSTM (ONNX semantics), shared by the shape
// function and the kernels.
#pragma once

#include <cstdint>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"
#include "runtime/core/attrs.hpp"

namespace mote {

// Inputs: 0 X, 1 W, 2 R, 3 B?, 4 sequence_lens?, 5 initial_h?, (LSTM) 6
// initial_c?, 7 P?. Outputs: 0 Y?, 1 Y_h?, (LSTM) 2 Y_c?.
struct RecurrentGeometry {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0;
  int64_t directions = 1;
  int64_t gates = 1;  // RNN 1, GRU 3, LSTM 4
  bool batch_first = false;

  Shape y_shape() const;
  Shape state_shape() const;  // Y_h, Y_c, initial_h, initial_c
};

int64_t recurrent_gates(fb::OpType type);

// ONNX's activations of one direction when the attribute lists none: RNN
// Tanh; GRU Sigmoid, Tanh; LSTM Sigmoid, Tanh, Tanh.
std::vector<fb::RnnActivation> default_recurrent_activations(fb::OpType type);

// Whether the op runs ONNX's default gate functions (listed or not) without
// alpha/beta parameters or clipping: the form the optimised CPU kernel and
// the training graph's unrolled form (runtime/train/unroll_recurrent.cpp) take.
bool uses_default_activations(fb::OpType type, const fb::RecurrentAttrsT& a, int64_t directions);

Result<RecurrentGeometry> recurrent_geometry(fb::OpType type, const fb::RecurrentAttrsT& a, const Shape& x,
                                             const Shape& w, const Shape& r);

}  // namespace mote
