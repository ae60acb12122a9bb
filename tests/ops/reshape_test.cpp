#include "tests/ops/data_movement_test_util.hpp"

namespace mote::test {
namespace {

fb::OpT reshape_op(bool allowzero = false) {
  fb::ReshapeAttrsT a;
  a.allowzero = allowzero;
  return make_op(fb::OpType::Reshape, a);
}

fb::OpT flatten_op(int64_t axis) {
  fb::AxisAttrsT a;
  a.axis = axis;
  return make_op(fb::OpType::Flatten, a);
}

Tensor iota_f32(Shape shape) {
  Tensor t = Tensor::zeros(DType::F32, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

TEST(ReshapeOps, CpuMatchesReference) {
  uint32_t seed = 1;
  for (int64_t n : odd_sizes()) {
    for (DType dtype : copy_dtypes()) {
      Tensor x = distinct_tensor(dtype, {2, n, 3}, seed++);
      expect_cpu_matches_reference_exactly(reshape_op(), {x, i64s({0, -1})});
      expect_cpu_matches_reference_exactly(reshape_op(), {x, i64s({-1})});
      expect_cpu_matches_reference_exactly(reshape_op(true), {x, i64s({3, n, 2})});
      for (int64_t axis : {0, 1, 2, 3, -1, -3}) expect_cpu_matches_reference_exactly(flatten_op(axis), {x});
      expect_cpu_matches_reference_exactly(make_op(fb::OpType::Identity), {x});
      expect_cpu_matches_reference_exactly(make_op(fb::OpType::Unsqueeze), {x, i64s({0, -1})});
      Tensor y = distinct_tensor(dtype, {1, n, 1, 3}, seed++);
      expect_cpu_matches_reference_exactly(make_op(fb::OpType::Squeeze), {y});
      expect_cpu_matches_reference_exactly(make_op(fb::OpType::Squeeze), {y, i64s({-2})});
    }
  }
}

TEST(ReshapeOps, LargeCopyMatchesReference) {
  Tensor x = distinct_tensor(DType::F32, {3, 1 << 16}, 5);
  expect_cpu_matches_reference_exactly(reshape_op(), {x, i64s({-1, 3})});
}

// numpy: np.arange(24).reshape(2, 3, 4).reshape(4, 3, -1) (0 keeps dimension 1)
TEST(ReshapeOps, ReshapeReferenceMatchesNumpy) {
  auto y = run_reference(reshape_op(), {iota_f32({2, 3, 4}), i64s({4, 0, -1})});
  ASSERT_EQ(y.size(), 1u);
  expect_tensors_near(y[0], iota_f32({4, 3, 2}), 0, 0);
  // allowzero: a 0 is a real zero. numpy: np.zeros((0, 3)).reshape(3, 0)
  auto z = run_reference(reshape_op(true), {Tensor::zeros(DType::F32, {0, 3}), i64s({3, 0})});
  ASSERT_EQ(z.size(), 1u);
  EXPECT_EQ(z[0].shape(), (Shape{3, 0}));
}

// numpy: x.reshape(prod(x.shape[:axis]), -1) for x = np.arange(24).reshape(2, 3, 4)
TEST(ReshapeOps, FlattenReferenceMatchesNumpy) {
  const std::vector<std::pair<fb::OpT, Shape>> cases = {
      {make_op(fb::OpType::Flatten), {2, 12}},  // ONNX default axis 1
      {flatten_op(0), {1, 24}},
      {flatten_op(-1), {6, 4}},
      {flatten_op(3), {24, 1}},
  };
  for (const auto& [op, shape] : cases) {
    auto y = run_reference(op, {iota_f32({2, 3, 4})});
    ASSERT_EQ(y.size(), 1u);
    expect_tensors_near(y[0], iota_f32(shape), 0, 0);
  }
}

// numpy: np.squeeze(x, axis=-2) and np.squeeze(x) for x of shape (1, 3, 1, 2);
// np.expand_dims(np.zeros((3, 4, 5)), (2, 4, 5)).shape == (3, 4, 1, 5, 1, 1)
TEST(ReshapeOps, SqueezeUnsqueezeReferenceMatchNumpy) {
  auto a = run_reference(make_op(fb::OpType::Squeeze), {iota_f32({1, 3, 1, 2}), i64s({-2})});
  ASSERT_EQ(a.size(), 1u);
  expect_tensors_near(a[0], iota_f32({1, 3, 2}), 0, 0);
  auto b = run_reference(make_op(fb::OpType::Squeeze), {iota_f32({1, 3, 1, 2})});
  ASSERT_EQ(b.size(), 1u);
  expect_tensors_near(b[0], iota_f32({3, 2}), 0, 0);
  auto c = run_reference(make_op(fb::OpType::Unsqueeze), {iota_f32({3, 4, 5}), i64s({5, 4, 2})});
  ASSERT_EQ(c.size(), 1u);
  expect_tensors_near(c[0], iota_f32({3, 4, 1, 5, 1, 1}), 0, 0);
  auto d = run_reference(make_op(fb::OpType::Identity), {iota_f32({3})});
  ASSERT_EQ(d.size(), 1u);
  expect_tensors_near(d[0], iota_f32({3}), 0, 0);
}

TEST(ReshapeOps, ShapeErrorsAreReported) {
  Tensor x = iota_f32({2, 3});
  expect_rejected(reshape_op(), {x, i64s({-1, -1})}, "more than one -1");
  expect_rejected(reshape_op(), {x, i64s({4, 2})}, "cannot reshape");
  expect_rejected(reshape_op(), {x, i64s({-1, 4})}, "cannot infer");
  expect_rejected(reshape_op(), {x, i64s({6, 1, 0})}, "has only 2 dimensions");
  expect_rejected(reshape_op(), {x, i64s({-2, -3})}, "negative dimension");
  expect_rejected(reshape_op(true), {x, i64s({0, -1})}, "cannot infer");
  expect_rejected(reshape_op(), {x, Tensor::from_vector<float>({2}, {3, 2})}, "must be i64 or i32");
  expect_rejected(flatten_op(3), {x}, "out of range");
  expect_rejected(flatten_op(-3), {x}, "out of range");
  expect_rejected(make_op(fb::OpType::Squeeze), {x, i64s({1})}, "size is not 1");
  expect_rejected(make_op(fb::OpType::Squeeze), {x, i64s({2})}, "out of range");
  expect_rejected(make_op(fb::OpType::Unsqueeze), {x, i64s({0, -4})}, "repeats");
  expect_rejected(make_op(fb::OpType::Unsqueeze), {x, i64s({4})}, "out of range");
  expect_rejected(make_op(fb::OpType::Unsqueeze), {x, std::nullopt}, "missing");
}

// The session provides value inputs before inference; a caller that cannot
// gets an error, not a crash.
TEST(ReshapeOps, UnknownShapeValueIsReported) {
  fb::OpT op = reshape_op();
  ShapeContext ctx{op, {TensorInfo{DType::F32, {2, 3}, nullptr}, TensorInfo{DType::I64, {2}, nullptr}}, {true, true}, {}};
  Status status = find_op_def(fb::OpType::Reshape)->infer(ctx);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("known before run time"), std::string::npos) << status.to_string();
}

}  // namespace
}  // namespace mote::test
