// RNN, GRU and LSTM test cases shared by the kernel tests
// (tests/ops/recurrent_test.cpp) and the training tests of their unrolled
// form (tests/train/grad_recurrent_test.cpp): the op and random inputs for a
// direction, layout and set of optional inputs.
#pragma once

#include <optional>

#include "tests/support/op_test_util.hpp"

namespace mote::test {

struct RecurrentCase {
  fb::OpType type;
  fb::RnnDirection direction;
  int64_t layout;
  int64_t seq, batch, input, hidden;
  bool bias, initial, peephole;
  bool linear_before_reset = false, input_forget = false;
};

// The op's inputs by position (std::nullopt where omitted; sequence_lens
// always omitted).
inline Inputs recurrent_inputs(const RecurrentCase& c, uint32_t seed) {
  const bool lstm = c.type == fb::OpType::LSTM;
  const int64_t dirs = c.direction == fb::RnnDirection::Bidirectional ? 2 : 1;
  const int64_t gates = lstm ? 4 : c.type == fb::OpType::GRU ? 3 : 1;
  const Shape x = c.layout ? Shape{c.batch, c.seq, c.input} : Shape{c.seq, c.batch, c.input};
  const Shape state = c.layout ? Shape{c.batch, dirs, c.hidden} : Shape{dirs, c.batch, c.hidden};
  auto some = [](bool present, Tensor t) { return present ? std::optional<Tensor>(std::move(t)) : std::nullopt; };
  Inputs in = {random_tensor(DType::F32, x, seed), random_tensor(DType::F32, {dirs, gates * c.hidden, c.input}, seed + 1),
               random_tensor(DType::F32, {dirs, gates * c.hidden, c.hidden}, seed + 2),
               some(c.bias, random_tensor(DType::F32, {dirs, 2 * gates * c.hidden}, seed + 3)),
               std::nullopt,  // sequence_lens
               some(c.initial, random_tensor(DType::F32, state, seed + 4))};
  if (lstm) {
    in.push_back(some(c.initial, random_tensor(DType::F32, state, seed + 5)));
    in.push_back(some(c.peephole, random_tensor(DType::F32, {dirs, 3 * c.hidden}, seed + 6)));
  }
  return in;
}

// Y, Y_h and, for LSTM, Y_c.
inline int recurrent_outputs(fb::OpType type) { return type == fb::OpType::LSTM ? 3 : 2; }

// The op with every output it can have (indices only matter to a session).
inline fb::OpT recurrent_op(const RecurrentCase& c) {
  fb::RecurrentAttrsT a;
  a.hidden_size = c.hidden;
  a.direction = c.direction;
  a.layout = c.layout;
  a.linear_before_reset = c.linear_before_reset;
  a.input_forget = c.input_forget;
  fb::OpT op = make_op(c.type, a);
  for (int k = 0; k < recurrent_outputs(c.type); ++k) op.outputs.push_back(100 + k);
  return op;
}

}  // namespace mote::test
