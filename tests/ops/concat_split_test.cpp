#include "tests/ops/data_movement_test_util.hpp"

namespace mote::test {
namespace {

fb::OpT concat_op(int64_t axis) {
  fb::AxisAttrsT a;
  a.axis = axis;
  return make_op(fb::OpType::Concat, a);
}

// A Split with `outputs` declared outputs (0: leave the list empty).
fb::OpT split_op(int64_t axis, int64_t num_outputs, size_t outputs) {
  fb::SplitAttrsT a;
  a.axis = axis;
  a.num_outputs = num_outputs;
  fb::OpT op = make_op(fb::OpType::Split, a);
  op.outputs.resize(outputs);
  return op;
}

TEST(ConcatSplitOps, ConcatCpuMatchesReference) {
  uint32_t seed = 1;
  for (int64_t n : odd_sizes()) {
    for (DType dtype : copy_dtypes()) {
      for (int64_t axis : {0, 1, 2, -1, -3}) {
        Shape a = {n, 3, 2}, b = {n, 3, 2}, c = {n, 3, 2};
        const size_t k = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
        a[k] = 1;
        b[k] = n + 4;
        c[k] = 0;  // an empty input contributes nothing
        expect_cpu_matches_reference_exactly(concat_op(axis), {distinct_tensor(dtype, a, seed++),
                                                               distinct_tensor(dtype, b, seed++),
                                                               distinct_tensor(dtype, c, seed++)});
      }
    }
  }
  expect_cpu_matches_reference_exactly(concat_op(0), {distinct_tensor(DType::F32, {5}, 9)});
  expect_cpu_matches_reference_exactly(
      concat_op(1), {distinct_tensor(DType::F32, {64, 1500}, 10), distinct_tensor(DType::F32, {64, 700}, 11)});
}

TEST(ConcatSplitOps, SplitCpuMatchesReference) {
  uint32_t seed = 100;
  for (int64_t n : odd_sizes()) {
    for (DType dtype : copy_dtypes()) {
      Tensor x = distinct_tensor(dtype, {3, n + 4, 5}, seed++);
      expect_cpu_matches_reference_exactly(split_op(1, 0, 3), {x, i64s({1, n, 3})});
      expect_cpu_matches_reference_exactly(split_op(-2, 0, 3), {x, i64s({0, n + 4, 0})});
      expect_cpu_matches_reference_exactly(split_op(1, 3, 3), {x});   // uneven: ceil-sized chunks, smaller last
      expect_cpu_matches_reference_exactly(split_op(2, 0, 5), {x});   // equal parts over the outputs
      expect_cpu_matches_reference_exactly(split_op(-1, 2, 0), {x});  // num_outputs alone
      expect_cpu_matches_reference_exactly(split_op(0, 0, 2), {x, i32s({2, 1})});
    }
  }
  expect_cpu_matches_reference_exactly(split_op(1, 2, 2), {distinct_tensor(DType::F32, {64, 2200}, 7)});
}

// numpy: np.concatenate([[[1, 2], [3, 4]], [[5], [6]], np.zeros((2, 0))], axis=-1)
TEST(ConcatSplitOps, ConcatReferenceMatchesNumpy) {
  auto y = run_reference(concat_op(-1), {Tensor::from_vector<float>({2, 2}, {1, 2, 3, 4}),
                                         Tensor::from_vector<float>({2, 1}, {5, 6}), Tensor::zeros(DType::F32, {2, 0})});
  ASSERT_EQ(y.size(), 1u);
  expect_tensors_near(y[0], Tensor::from_vector<float>({2, 3}, {1, 2, 5, 3, 4, 6}), 0, 0);
}

TEST(ConcatSplitOps, SplitReferenceMatchesNumpy) {
  // ONNX 18 uneven split of np.arange(7) in 3: [0:3], [3:6], [6:7]
  auto y = run_reference(split_op(0, 3, 3), {Tensor::from_vector<int64_t>({7}, {0, 1, 2, 3, 4, 5, 6})});
  ASSERT_EQ(y.size(), 3u);
  expect_tensors_near(y[0], Tensor::from_vector<int64_t>({3}, {0, 1, 2}), 0, 0);
  expect_tensors_near(y[1], Tensor::from_vector<int64_t>({3}, {3, 4, 5}), 0, 0);
  expect_tensors_near(y[2], Tensor::from_vector<int64_t>({1}, {6}), 0, 0);
  // numpy: np.split(np.arange(14).reshape(2, 7), [2, 5], axis=1)[1]
  std::vector<int64_t> x(14);
  for (int64_t i = 0; i < 14; ++i) x[static_cast<size_t>(i)] = i;
  auto z = run_reference(split_op(1, 0, 3), {Tensor::from_vector<int64_t>({2, 7}, x), i64s({2, 3, 2})});
  ASSERT_EQ(z.size(), 3u);
  expect_tensors_near(z[1], Tensor::from_vector<int64_t>({2, 3}, {2, 3, 4, 9, 10, 11}), 0, 0);
}

TEST(ConcatSplitOps, ShapeErrorsAreReported) {
  Tensor a = Tensor::zeros(DType::F32, {2, 3});
  expect_rejected(concat_op(2), {a, a}, "out of range");
  expect_rejected(concat_op(0), {a, Tensor::zeros(DType::F32, {2, 4})}, "does not match");
  expect_rejected(concat_op(0), {a, Tensor::zeros(DType::F32, {2, 3, 1})}, "does not match");
  expect_rejected(concat_op(0), {a, Tensor::zeros(DType::I32, {2, 3})}, "is i32 but input 0 is f32");
  expect_rejected(concat_op(0), {Tensor::from_vector<float>({}, {1})}, "out of range");
  expect_rejected(concat_op(0), {a, std::nullopt}, "missing");

  expect_rejected(split_op(1, 0, 2), {a, i64s({1, 1})}, "do not sum");
  expect_rejected(split_op(1, 0, 2), {a, i64s({4, -1})}, "negative size");
  expect_rejected(split_op(1, 0, 3), {a, i64s({1, 2})}, "has 3 outputs");
  expect_rejected(split_op(1, 0, 0), {a}, "needs split sizes");
  expect_rejected(split_op(0, 0, 0), {Tensor::zeros(DType::F32, {5}), std::nullopt}, "needs split sizes");
  expect_rejected(split_op(0, 4, 4), {Tensor::zeros(DType::F32, {5})}, "cannot split");
  expect_rejected(split_op(2, 2, 2), {a}, "out of range");
}

}  // namespace
}  // namespace mote::test
