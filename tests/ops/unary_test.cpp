#include "tests/support/op_test_util.hpp"

namespace mote::test {
namespace {

TEST(UnaryOps, ReluCpuMatchesReference) {
  for (int64_t n : odd_sizes()) {
    expect_cpu_matches_reference(make_op(fb::OpType::Relu), {random_tensor(DType::F32, {2, n}, 7)});
  }
}

// Expected values from numpy: np.maximum(x, 0).
TEST(UnaryOps, ReluReferenceMatchesNumpy) {
  Tensor x = Tensor::from_vector<float>({4}, {-1.5f, 0.0f, 2.0f, -0.0f});
  auto y = run_op(make_op(fb::OpType::Relu), {x}, Impl::kReference);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  expect_tensors_near((*y)[0], Tensor::from_vector<float>({4}, {0.0f, 0.0f, 2.0f, 0.0f}), 0, 0);
}

}  // namespace
}  // namespace mote::test
