#include "tests/ops/data_movement_test_util.hpp"

namespace mote::test {
namespace {

TEST(ExpandTileOps, ExpandCpuMatchesReference) {
  const fb::OpT op = make_op(fb::OpType::Expand);
  uint32_t seed = 1;
  for (int64_t n : odd_sizes()) {
    for (DType dtype : copy_dtypes()) {
      expect_cpu_matches_reference_exactly(op, {distinct_tensor(dtype, {n, 1}, seed++), i64s({2, 1, 5})});
      expect_cpu_matches_reference_exactly(op, {distinct_tensor(dtype, {1, n}, seed++), i64s({3, 1})});
      expect_cpu_matches_reference_exactly(op, {distinct_tensor(dtype, {3, 1, n}, seed++), i64s({3, 4, 1})});
      expect_cpu_matches_reference_exactly(op, {distinct_tensor(dtype, {2, n, 3}, seed++), i64s({3})});
      expect_cpu_matches_reference_exactly(op, {distinct_tensor(dtype, {}, seed++), i64s({n, 2})});
      expect_cpu_matches_reference_exactly(op, {distinct_tensor(dtype, {1, n}, seed++), i64s({0, 1})});
    }
  }
  expect_cpu_matches_reference_exactly(op, {distinct_tensor(DType::F32, {1, 1000}, 7), i64s({300, 1})});
  expect_cpu_matches_reference_exactly(op, {distinct_tensor(DType::F32, {300, 1}, 8), i64s({300, 1000})});
}

TEST(ExpandTileOps, TileCpuMatchesReference) {
  const fb::OpT op = make_op(fb::OpType::Tile);
  uint32_t seed = 100;
  for (int64_t n : odd_sizes()) {
    for (DType dtype : copy_dtypes()) {
      Tensor x = distinct_tensor(dtype, {2, n, 3}, seed++);
      expect_cpu_matches_reference_exactly(op, {x, i64s({1, 1, 1})});
      expect_cpu_matches_reference_exactly(op, {x, i64s({3, 1, 2})});
      expect_cpu_matches_reference_exactly(op, {x, i64s({1, 2, 5})});
      expect_cpu_matches_reference_exactly(op, {x, i64s({2, 0, 1})});
      expect_cpu_matches_reference_exactly(op, {x, i32s({1, 3, 1})});
    }
  }
  expect_cpu_matches_reference_exactly(op, {distinct_tensor(DType::F32, {64, 300}, 7), i64s({4, 3})});
}

// numpy: np.array([[1], [2], [3]]) * np.ones((2, 1, 2))
TEST(ExpandTileOps, ExpandReferenceMatchesNumpy) {
  auto y = run_reference(make_op(fb::OpType::Expand), {Tensor::from_vector<float>({3, 1}, {1, 2, 3}), i64s({2, 1, 2})});
  ASSERT_EQ(y.size(), 1u);
  expect_tensors_near(y[0], Tensor::from_vector<float>({2, 3, 2}, {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}), 0, 0);
}

// numpy: np.tile(np.array([[1, 2], [3, 4]]), (2, 3))
TEST(ExpandTileOps, TileReferenceMatchesNumpy) {
  auto y = run_reference(make_op(fb::OpType::Tile), {Tensor::from_vector<int32_t>({2, 2}, {1, 2, 3, 4}), i64s({2, 3})});
  ASSERT_EQ(y.size(), 1u);
  expect_tensors_near(y[0],
                      Tensor::from_vector<int32_t>({4, 6}, {1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,
                                                            1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}),
                      0, 0);
}

TEST(ExpandTileOps, ShapeErrorsAreReported) {
  Tensor x = Tensor::zeros(DType::F32, {2, 3});
  expect_rejected(make_op(fb::OpType::Expand), {x, i64s({4, 3})}, "cannot be broadcast");
  expect_rejected(make_op(fb::OpType::Expand), {x, i64s({-1, 3})}, "negative dimension");
  expect_rejected(make_op(fb::OpType::Expand), {x, Tensor::from_vector<float>({1}, {3})}, "must be i64 or i32");
  expect_rejected(make_op(fb::OpType::Tile), {x, i64s({2})}, "'repeats' has 1 entries");
  expect_rejected(make_op(fb::OpType::Tile), {x, i64s({2, -1})}, "negative");
  expect_rejected(make_op(fb::OpType::Tile), {x, i64s({INT64_MAX, 2})}, "overflow");
}

}  // namespace
}  // namespace mote::test
