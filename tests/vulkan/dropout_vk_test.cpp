// Training-mode Dropout on Vulkan against the reference kernel: the shader
// recomputes the CPU's mask (runtime/ops/dropout.hpp), so the outputs agree
// element for element, whatever the seed's and step's high words, the step's
// dtype, and whether the step is known at prepare time or fed per run.
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

fb::OpT training_dropout(float ratio, int64_t seed) {
  fb::DropoutAttrsT a;
  a.ratio = ratio;
  a.seed = seed;
  a.training_mode = true;
  return make_op(fb::OpType::Dropout, a);
}

// A dropped element is off by the whole kept value, far beyond these.
const Tolerance kTol{1e-6, 1e-7, 5e-3, 5e-3};

TEST(DropoutVk, SameMaskAsTheReference) {
  MOTE_REQUIRE_VULKAN();
  Tensor x = random_tensor(DType::F32, {3, 127, 13}, 1, 0.5, 1.5);
  for (uint32_t constant_mask : {0u, 0b10u}) {
    expect_vulkan_matches_reference(training_dropout(0.3f, 1234), {x, Tensor::from_vector<int64_t>({}, {5})}, kTol,
                                    constant_mask);
    expect_vulkan_matches_reference(training_dropout(0.7f, (int64_t{1} << 40) + 77),
                                    {x, Tensor::from_vector<int64_t>({}, {(int64_t{1} << 32) + 9})}, kTol,
                                    constant_mask);
    expect_vulkan_matches_reference(training_dropout(0.5f, -3), {x, Tensor::from_vector<int32_t>({}, {-2})}, kTol,
                                    constant_mask);
  }
}

}  // namespace
}  // namespace mote::test
