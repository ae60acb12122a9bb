#include <algorithm>
#include <numeric>

#include "tests/ops/data_movement_test_util.hpp"
#include "tests/support/simd_targets.hpp"

namespace mote::test {
namespace {

fb::OpT transpose_op(std::vector<int64_t> perm) {
  fb::TransposeAttrsT a;
  a.perm = std::move(perm);
  return make_op(fb::OpType::Transpose, a);
}

Tensor iota_i64(Shape shape) {
  Tensor t = Tensor::zeros(DType::I64, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<int64_t>()[i] = i;
  return t;
}

TEST(TransposeOps, EveryPermutationOfRank4MatchesReference) {
  std::vector<int64_t> perm = {0, 1, 2, 3};
  uint32_t seed = 1;
  do {
    expect_cpu_matches_reference_exactly(transpose_op(perm), {distinct_tensor(DType::F32, {3, 5, 2, 7}, seed++)});
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(TransposeOps, CpuMatchesReferenceOnOddSizes) {
  uint32_t seed = 100;
  for (int64_t n : odd_sizes()) {
    for (DType dtype : copy_dtypes()) {
      Tensor x = distinct_tensor(dtype, {n, 3, n + 2}, seed++);
      expect_cpu_matches_reference_exactly(make_op(fb::OpType::Transpose), {x});  // reversed axes
      expect_cpu_matches_reference_exactly(transpose_op({0, 2, 1}), {x});
      expect_cpu_matches_reference_exactly(transpose_op({1, 0, 2}), {x});
      expect_cpu_matches_reference_exactly(transpose_op({2, 0, 1}), {x});
      expect_cpu_matches_reference_exactly(transpose_op({0, 1, 2}), {x});
    }
  }
}

// Large enough for several tiles in both directions and for both threads;
// on every SIMD target, as 4-byte tiles move in 4x4 vector blocks
// (transpose_simd.cpp) with scalar edges.
TEST(TransposeOps, LargeTiledTransposesMatchReference) {
  for_each_simd_target([] {
    uint32_t seed = 200;
    for (DType dtype : copy_dtypes()) {
      expect_cpu_matches_reference_exactly(transpose_op({1, 0}), {distinct_tensor(dtype, {301, 257}, seed++)});
      expect_cpu_matches_reference_exactly(transpose_op({0, 2, 1}), {distinct_tensor(dtype, {5, 67, 129}, seed++)});
      expect_cpu_matches_reference_exactly(transpose_op({2, 1, 0}), {distinct_tensor(dtype, {33, 3, 65}, seed++)});
    }
  });
  // NCHW -> NHWC and back, with size-1 axes that collapse away.
  Tensor nchw = distinct_tensor(DType::F32, {1, 64, 28, 29}, 7);
  expect_cpu_matches_reference_exactly(transpose_op({0, 2, 3, 1}), {nchw});
  expect_cpu_matches_reference_exactly(transpose_op({0, 3, 1, 2}), {nchw});
  expect_cpu_matches_reference_exactly(transpose_op({1, 0, 2, 3}), {nchw});
}

// NHWC images of 2 to 4 channels to NCHW (TFLite models' inputs): few
// rows, moved element by element in tasks of columns (strided_copy.cpp's
// kFewRows); 5 images of 11,100 pixels, two tasks each, a thread's run of
// tasks crossing from one image to the next, and 3 of 18,000, three tasks
// each (at 2 threads a run starts inside an image).
TEST(TransposeOps, FewChannelImagesToPlanesMatchReference) {
  uint32_t seed = 300;
  for (DType dtype : copy_dtypes()) {
    for (int64_t channels : {2, 3, 4}) {
      const Tensor nhwc = distinct_tensor(dtype, {5, 37, 300, channels}, seed++);
      expect_cpu_matches_reference_exactly(transpose_op({0, 3, 1, 2}), {nhwc});
    }
  }
  expect_cpu_matches_reference_exactly(transpose_op({0, 3, 1, 2}), {distinct_tensor(DType::U8, {3, 60, 300, 3}, 8)});
  expect_cpu_matches_reference_exactly(transpose_op({0, 3, 1, 2}), {distinct_tensor(DType::I8, {1, 5, 7, 3}, 9)});
}

TEST(TransposeOps, ScalarsAndEmptyTensors) {
  expect_cpu_matches_reference_exactly(make_op(fb::OpType::Transpose), {Tensor::from_vector<float>({}, {2.5f})});
  expect_cpu_matches_reference_exactly(transpose_op({1, 0}), {Tensor::zeros(DType::F32, {0, 4})});
}

// numpy: np.transpose(np.arange(24).reshape(2, 3, 4), (1, 2, 0)) and np.transpose(x)
TEST(TransposeOps, ReferenceMatchesNumpy) {
  auto y = run_reference(transpose_op({1, 2, 0}), {iota_i64({2, 3, 4})});
  ASSERT_EQ(y.size(), 1u);
  expect_tensors_near(y[0],
                      Tensor::from_vector<int64_t>({3, 4, 2}, {0, 12, 1, 13, 2, 14, 3, 15, 4, 16, 5, 17, 6, 18, 7, 19,
                                                               8, 20, 9, 21, 10, 22, 11, 23}),
                      0, 0);
  auto z = run_reference(make_op(fb::OpType::Transpose), {iota_i64({2, 3, 4})});
  ASSERT_EQ(z.size(), 1u);
  expect_tensors_near(z[0],
                      Tensor::from_vector<int64_t>({4, 3, 2}, {0, 12, 4, 16, 8, 20, 1, 13, 5, 17, 9, 21, 2, 14, 6, 18,
                                                               10, 22, 3, 15, 7, 19, 11, 23}),
                      0, 0);
}

TEST(TransposeOps, ShapeErrorsAreReported) {
  Tensor x = iota_i64({2, 3, 4});
  expect_rejected(transpose_op({1, 0}), {x}, "'perm' has 2 entries");
  expect_rejected(transpose_op({0, 0, 1}), {x}, "not a permutation");
  expect_rejected(transpose_op({0, 1, 3}), {x}, "not a permutation");
  expect_rejected(transpose_op({0, -1, 1}), {x}, "not a permutation");
}

}  // namespace
}  // namespace mote::test
