#include <string>
#include <vector>

#include "tests/ops/fused_activation_util.hpp"
#include "tests/support/op_test_util.hpp"

namespace mote::test {
namespace {

constexpr double kRtol = 1e-4;
constexpr double kAtol = 1e-4;

void check_matmul(const Shape& a, const Shape& b, const fb::FusedActivationT* act = nullptr, uint32_t seed = 1) {
  fb::OpT op = make_op(fb::OpType::MatMul);
  if (act) op = with_fused(std::move(op), *act);
  SCOPED_TRACE("A " + shape_to_string(a) + " B " + shape_to_string(b) + (act ? " fused " + fused_name(*act) : ""));
  expect_cpu_matches_reference(op, {random_tensor(DType::F32, a, seed), random_tensor(DType::F32, b, seed + 1)}, kRtol,
                               kAtol);
}

TEST(MatMulOps, CpuMatchesReferenceOnOddSizes) {
  uint32_t seed = 1;
  for (int64_t m : odd_sizes()) {
    for (int64_t n : odd_sizes()) {
      for (int64_t k : {1, 13, 127}) check_matmul({m, k}, {k, n}, nullptr, seed++);
    }
  }
}

TEST(MatMulOps, CpuMatchesReferenceForVectorAndBatchShapes) {
  for (int64_t s : odd_sizes()) {
    const int64_t m = s, k = s + 2, n = 2 * s + 1;
    check_matmul({k}, {k, n});               // [K] x [K, N] -> [N]
    check_matmul({m, k}, {k});               // [M, K] x [K] -> [M]
    check_matmul({k}, {k});                  // [K] x [K] -> []
    check_matmul({3, m, k}, {k, n});         // batch folded into the rows
    check_matmul({2, 1, m, k}, {3, k, n});   // broadcast batch dims
    check_matmul({m, k}, {4, k, n});         // A broadcast over B's batch
    check_matmul({5, m, k}, {5, k, n});      // paired batches
    check_matmul({k}, {2, k, n});            // 1-D A with a batch of B
    check_matmul({2, 3, m, k}, {k});         // batch of A times a vector
    check_matmul({1, 3, m, k}, {2, 1, k, n});
  }
  check_matmul({12, 16, 40}, {12, 40, 16});  // many small matrices: parallel batches
  check_matmul({2, 300, 200}, {200, 250});   // big enough for threaded sgemm
  check_matmul({0, 3, 4}, {4, 5});
  check_matmul({3, 0}, {0, 5});
}

TEST(MatMulOps, FusedActivationsCpuMatchReference) {
  for (const auto& act : all_fused_activations()) {
    check_matmul({13, 9}, {9, 17}, &act);
    check_matmul({2, 1, 5, 9}, {3, 9, 7}, &act);
    check_matmul({9}, {9, 33}, &act);
  }
}

// Expected values from numpy:
//   a = ((np.arange(12) % 7) - 3).reshape(2, 1, 2, 3) * 0.5
//   b = ((np.arange(18) % 5) - 2).reshape(3, 3, 2) * 0.25
//   np.matmul(a, b)  -> shape (2, 3, 2, 2)
TEST(MatMulOps, ReferenceMatchesNumpyBroadcastBatch) {
  std::vector<float> av(12), bv(18);
  for (int i = 0; i < 12; ++i) av[i] = static_cast<float>((i % 7) - 3) * 0.5f;
  for (int i = 0; i < 18; ++i) bv[i] = static_cast<float>((i % 5) - 2) * 0.25f;
  auto y = run_op(make_op(fb::OpType::MatMul),
                  {Tensor::from_vector<float>({2, 1, 2, 3}, av), Tensor::from_vector<float>({3, 3, 2}, bv)},
                  Impl::kReference);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  Tensor expected = Tensor::from_vector<float>(
      {2, 3, 2, 2}, {0.5f,   0.375f, 0.5f,   -0.375f, 0.375f,  -0.375f, -0.375f, 0.0f,
                     -0.375f, 0.125f, 0.0f,  -0.25f,  -1.25f,  -0.25f,  0.5f,    -0.125f,
                     -0.25f, -0.5f,  -0.125f, -0.125f, -0.5f,  1.125f,  -0.125f, -0.125f});
  expect_tensors_near((*y)[0], expected, 1e-6, 1e-6);
}

// Expected values from numpy, a 1-D A against a batch of B:
//   v = [1, -2, 0.5]; b = ((np.arange(12) % 5) - 2).reshape(2, 3, 2) * 0.25
//   np.matmul(v, b)  -> shape (2, 2)
TEST(MatMulOps, ReferenceMatchesNumpyVectorTimesBatch) {
  std::vector<float> bv(12);
  for (int i = 0; i < 12; ++i) bv[i] = static_cast<float>((i % 5) - 2) * 0.25f;
  auto y = run_op(make_op(fb::OpType::MatMul),
                  {Tensor::from_vector<float>({3}, {1.0f, -2.0f, 0.5f}), Tensor::from_vector<float>({2, 3, 2}, bv)},
                  Impl::kReference);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  expect_tensors_near((*y)[0], Tensor::from_vector<float>({2, 2}, {-0.25f, -1.0f, -1.0f, -1.125f}), 1e-6, 1e-6);
}

void expect_shape_error(const Shape& a, const Shape& b, const std::string& words, DType b_dtype = DType::F32) {
  auto result = run_op(make_op(fb::OpType::MatMul), {Tensor::zeros(DType::F32, a), Tensor::zeros(b_dtype, b)},
                       Impl::kReference);
  ASSERT_FALSE(result.ok()) << "A " << shape_to_string(a) << " B " << shape_to_string(b);
  EXPECT_NE(result.status().message().find(words), std::string::npos) << result.status().message();
}

TEST(MatMulOps, ShapeFunctionRejectsBadModels) {
  expect_shape_error({2, 3}, {4, 5}, "inner dimensions");
  expect_shape_error({3}, {4}, "inner dimensions");
  expect_shape_error({2, 2, 3}, {3, 3, 4}, "batch dimensions");
  expect_shape_error({}, {3, 4}, "rank 1 or more");
  expect_shape_error({2, 3}, {3, 4}, "must match", DType::F16);
}

}  // namespace
}  // namespace mote::test
