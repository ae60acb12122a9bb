// RNN, GRU and LSTM: the optimised CPU kernel (sgemm projections, f32 gate
// math) against the reference kernel (the ONNX equations step by step in
// double), over directions, layouts, batch sizes, biases, initial states,
// peepholes and GRU's two reset forms; the forms the CPU kernel hands to the
// reference one (custom activations, short sequences) must still agree.
#include "tests/support/recurrent_cases.hpp"

namespace mote::test {
namespace {

using Case = RecurrentCase;

Inputs inputs_for(const Case& c, uint32_t seed) { return recurrent_inputs(c, seed); }
fb::OpT op_for(const Case& c) { return recurrent_op(c); }

TEST(RecurrentOps, CpuKernelMatchesTheReference) {
  using T = fb::OpType;
  using D = fb::RnnDirection;
  const std::vector<Case> cases = {
      {T::LSTM, D::Forward, 0, 7, 1, 40, 64, true, true, false, false},
      {T::LSTM, D::Bidirectional, 1, 5, 3, 13, 17, true, true, true, false},
      {T::LSTM, D::Reverse, 0, 4, 2, 8, 5, false, false, false, false},
      {T::GRU, D::Forward, 0, 6, 2, 11, 9, true, true, false, false},
      {T::GRU, D::Bidirectional, 1, 5, 1, 7, 16, true, false, false, true},
      {T::RNN, D::Bidirectional, 0, 9, 4, 6, 33, true, true, false, false},
      {T::RNN, D::Forward, 1, 1, 1, 3, 2, false, true, false, false},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(op_type_name(c.type)) + " seq " + std::to_string(c.seq) + " batch " +
                 std::to_string(c.batch) + " hidden " + std::to_string(c.hidden));
    expect_cpu_matches_reference(op_for(c), inputs_for(c, seed), 1e-5, 1e-5);
    seed += 10;
  }
}

TEST(RecurrentOps, FormsLeftToTheReferenceKernelStillAgree) {
  Case c{fb::OpType::GRU, fb::RnnDirection::Forward, 0, 5, 2, 4, 6, true, true, false, false};
  // Shorter rows: the reference kernel's sequence_lens handling.
  Inputs in = inputs_for(c, 7);
  in[4] = Tensor::from_vector<int32_t>({2}, {5, 3});
  expect_cpu_matches_reference(op_for(c), in, 1e-5, 1e-5);
  // A custom activation (and clip).
  fb::OpT op = op_for(c);
  auto* a = const_cast<fb::RecurrentAttrsT*>(find_attrs<fb::RecurrentAttrsT>(op));
  a->activations = {fb::RnnActivation::HardSigmoid, fb::RnnActivation::Tanh};
  a->clip = 0.5f;
  expect_cpu_matches_reference(op, inputs_for(c, 8), 1e-5, 1e-5);
}

}  // namespace
}  // namespace mote::test
