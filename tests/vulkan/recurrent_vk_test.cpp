// RNN, GRU and LSTM on Vulkan (matmul.comp for the input projections, then
// recurrent.comp over the sequence) against the reference kernel, over
// directions, layouts, batch sizes, biases, initial states, GRU's two reset
// forms, input_forget and hidden sizes past one workgroup's width; the forms
// that stay on the CPU say why.
#include "tests/support/recurrent_cases.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

// Sums over the input and hidden sizes and a chain of steps, in another
// order than the double-precision reference; f16 storage rounds the inputs,
// the projections and every stored output.
const Tolerance kTol{1e-4, 1e-5, 2e-2, 2e-2};

TEST(RecurrentVk, MatchesReference) {
  MOTE_REQUIRE_VULKAN();
  using T = fb::OpType;
  using D = fb::RnnDirection;
  const std::vector<RecurrentCase> cases = {
      {T::LSTM, D::Forward, 0, 7, 1, 40, 64, true, true, false},
      {T::LSTM, D::Bidirectional, 1, 5, 3, 13, 17, true, true, false},
      {T::LSTM, D::Reverse, 0, 4, 2, 8, 5, false, false, false, false, true},
      {T::LSTM, D::Forward, 1, 3, 2, 6, 300, true, false, false},  // units past one workgroup's width
      {T::GRU, D::Forward, 0, 6, 2, 11, 9, true, true, false},
      {T::GRU, D::Bidirectional, 1, 5, 1, 7, 16, true, false, false, true},
      {T::RNN, D::Bidirectional, 0, 9, 4, 6, 33, true, true, false},
      {T::RNN, D::Forward, 1, 1, 1, 3, 2, false, true, false},
  };
  uint32_t seed = 1;
  for (const RecurrentCase& c : cases) {
    SCOPED_TRACE(std::string(op_type_name(c.type)) + " seq " + std::to_string(c.seq) + " batch " +
                 std::to_string(c.batch) + " hidden " + std::to_string(c.hidden));
    expect_vulkan_matches_reference(recurrent_op(c), recurrent_inputs(c, seed), kTol);
    seed += 10;
  }
}

TEST(RecurrentVk, OtherFormsRunOnTheCpuAndSayWhy) {
  MOTE_REQUIRE_VULKAN();
  const RecurrentCase lstm{fb::OpType::LSTM, fb::RnnDirection::Forward, 0, 3, 2, 4, 5, true, true, true};
  const RecurrentCase gru{fb::OpType::GRU, fb::RnnDirection::Forward, 0, 3, 2, 4, 5, true, true, false};
  Inputs with_lengths = recurrent_inputs(gru, 1);
  with_lengths[4] = Tensor::from_vector<int32_t>({2}, {3, 2});
  fb::OpT clipped = recurrent_op(gru);
  const_cast<fb::RecurrentAttrsT*>(find_attrs<fb::RecurrentAttrsT>(clipped))->clip = 0.5f;
  const std::vector<std::tuple<std::string, fb::OpT, Inputs>> forms = {
      {"peepholes", recurrent_op(lstm), recurrent_inputs(lstm, 1)},
      {"sequence_lens", recurrent_op(gru), with_lengths},
      {"clip", clipped, recurrent_inputs(gru, 2)},
  };
  for (const auto& [reason, op, inputs] : forms) {
    SCOPED_TRACE(reason);
    auto run = run_op_vulkan(op, inputs, GpuPrecision::kF32);
    ASSERT_TRUE(run.ok()) << run.status().to_string();
    ASSERT_FALSE(run->placement.empty());
    EXPECT_EQ(run->placement[0].device, "cpu");
    EXPECT_NE(run->placement[0].reason.find(reason), std::string::npos) << run->placement[0].reason;
  }
}

}  // namespace
}  // namespace mote::test
