// RNN, GRU and LSTM in training graphs, unrolled into per-step ops
// (runtime/train/unroll_recurrent.cpp): each output of the unrolled graph
// against the op's reference kernel (ONNX's equations step by step in
// double), and its gradients against central finite differences
// (grad_check.hpp), over directions, layouts, biases, initial states,
// peepholes, input_forget and both GRU reset forms.
#include <gtest/gtest.h>

#include "runtime/train/unroll_recurrent.hpp"
#include "tests/support/recurrent_cases.hpp"
#include "tests/train/grad_check.hpp"

namespace mote::test {
namespace {

using Case = RecurrentCase;

std::string describe(const Case& c) {
  const char* dir = c.direction == fb::RnnDirection::Bidirectional ? "bidirectional"
                    : c.direction == fb::RnnDirection::Reverse     ? "reverse"
                                                                   : "forward";
  return std::string(op_type_name(c.type)) + " " + dir + " layout " + std::to_string(c.layout) +
         (c.peephole ? " peepholes" : "") + (c.linear_before_reset ? " linear_before_reset" : "") +
         (c.input_forget ? " input_forget" : "");
}

fb::OpT op_for(const Case& c) {
  fb::OpT op = recurrent_op(c);
  op.name = "rnn";
  return op;
}

Inputs inputs_for(const Case& c, uint32_t seed) { return recurrent_inputs(c, seed); }

// Output `which` of the unrolled op, with its value from the reference kernel.
GradCase unrolled_case(const Case& c, size_t which, uint32_t seed) {
  static const char* const kNames[] = {"X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"};
  const Inputs in = inputs_for(c, seed);
  const fb::OpT op = op_for(c);
  GradCase gc;
  std::vector<int> position;  // graph input -> op input
  for (size_t i = 0; i < in.size(); ++i) {
    if (!in[i]) continue;
    gc.inputs.push_back({kNames[i], *in[i]});
    position.push_back(static_cast<int>(i));
  }
  const int outputs = recurrent_outputs(c.type);
  gc.forward = [op, position, size = in.size(), outputs, which](TrainGraph& g, const std::vector<int>& ids) {
    std::vector<int> op_inputs(size, -1);
    for (size_t k = 0; k < ids.size(); ++k) op_inputs[static_cast<size_t>(position[k])] = ids[k];
    auto outs = unroll_recurrent(g, op, op_inputs, outputs);
    return outs.ok() ? (*outs)[which] : g.fail(outs.status());
  };
  auto want = run_op(op, in, Impl::kReference);
  EXPECT_TRUE(want.ok()) << want.status().to_string();
  if (want.ok()) gc.expected_y = (*want)[which];
  return gc;
}

TEST(GradRecurrent, UnrolledOpsComputeTheOpAndItsGradients) {
  using T = fb::OpType;
  using D = fb::RnnDirection;
  const std::vector<Case> cases = {
      {T::LSTM, D::Forward, 0, 3, 2, 3, 4, true, true, false},
      {T::LSTM, D::Bidirectional, 1, 3, 2, 2, 3, true, true, true},
      {T::LSTM, D::Reverse, 0, 2, 1, 3, 2, false, false, false, false, true},
      {T::GRU, D::Forward, 0, 3, 2, 3, 4, true, true, false},
      {T::GRU, D::Bidirectional, 1, 3, 1, 2, 3, true, false, false, true},
      {T::RNN, D::Bidirectional, 0, 3, 2, 3, 4, true, true, false},
      {T::RNN, D::Forward, 1, 1, 1, 2, 2, false, false, false},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    for (int which = 0; which < recurrent_outputs(c.type); ++which) {
      const std::string what = describe(c) + ", output " + std::to_string(which);
      check_gradients(unrolled_case(c, static_cast<size_t>(which), seed), what);
    }
    seed += 10;
  }
}

TEST(GradRecurrent, CpuRunsTheUnrolledGraphInF32) {
  const Case c{fb::OpType::LSTM, fb::RnnDirection::Bidirectional, 0, 4, 2, 3, 5, true, true, true};
  check_cpu_matches_reference(unrolled_case(c, 0, 3), describe(c));
}

TEST(GradRecurrent, FormsWithoutAnUnrolledFormAreRefused) {
  const Case c{fb::OpType::GRU, fb::RnnDirection::Forward, 0, 3, 2, 3, 4, true, true, false};
  const Inputs in = inputs_for(c, 1);
  fb::OpT clipped = op_for(c);
  const_cast<fb::RecurrentAttrsT*>(find_attrs<fb::RecurrentAttrsT>(clipped))->clip = 1.0f;
  TrainGraph g;
  std::vector<int> ids;
  for (const auto& t : in) ids.push_back(t ? g.input("in" + std::to_string(ids.size()), t->dtype(), t->shape()) : -1);
  auto outs = unroll_recurrent(g, clipped, ids, 2);
  ASSERT_FALSE(outs.ok());
  EXPECT_NE(outs.status().message().find("GRU 'rnn'"), std::string::npos) << outs.status().message();
  EXPECT_NE(outs.status().message().find("clip"), std::string::npos) << outs.status().message();
  ids[4] = g.input("lens", DType::I32, {2});
  outs = unroll_recurrent(g, op_for(c), ids, 2);
  ASSERT_FALSE(outs.ok());
  EXPECT_NE(outs.status().message().find("sequence_lens"), std::string::npos) << outs.status().message();
}

}  // namespace
}  // namespace mote::test
