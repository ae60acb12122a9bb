#include "tests/ops/data_movement_test_util.hpp"

namespace mote::test {
namespace {

fb::OpT pad_op(fb::PadMode mode) {
  fb::PadAttrsT a;
  a.mode = mode;
  return make_op(fb::OpType::Pad, a);
}

const fb::PadMode kModes[] = {fb::PadMode::Constant, fb::PadMode::Reflect, fb::PadMode::Edge, fb::PadMode::Wrap};

Tensor iota_f32(Shape shape) {
  Tensor t = Tensor::zeros(DType::F32, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

TEST(PadOps, CpuMatchesReferenceInEveryMode) {
  uint32_t seed = 1;
  for (int64_t n : odd_sizes()) {
    for (fb::PadMode mode : kModes) {
      Tensor x = distinct_tensor(DType::F32, {3, n, 4}, seed++);
      const fb::OpT op = pad_op(mode);
      expect_cpu_matches_reference_exactly(op, {x, i64s({1, 2, 0, 0, 3, 5})});
      expect_cpu_matches_reference_exactly(op, {x, i64s({0, 0, 0, 0, 0, 0})});
      expect_cpu_matches_reference_exactly(op, {x, i64s({2, 7}), std::nullopt, i64s({-1})});  // wider than the axis
      expect_cpu_matches_reference_exactly(op, {x, i64s({-1, 2, 1, -2}), std::nullopt, i64s({0, 2})});  // crops
      expect_cpu_matches_reference_exactly(op, {x, i32s({4, 0, 1, 9}), std::nullopt, i32s({-3, 1})});
    }
  }
  Tensor big = distinct_tensor(DType::F32, {1, 32, 56, 57}, 7);
  for (fb::PadMode mode : kModes) {
    expect_cpu_matches_reference_exactly(pad_op(mode), {big, i64s({0, 0, 1, 3, 0, 0, 2, 1})});
  }
}

// Found by fuzzing: an empty tensor padded to a 2^32-long axis sized
// per-axis tables by that axis (32 GB) for an output with no elements.
TEST(PadOps, EmptyOutputWithAHugeAxisAllocatesNothing) {
  const Tensor x = Tensor::zeros(DType::F32, {0, 3});
  auto out = run_op(pad_op(fb::PadMode::Constant), {x, i64s({0, 0, 0, int64_t{1} << 32})}, Impl::kCpu);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 3 + (int64_t{1} << 32)}));
}

TEST(PadOps, EveryDtypeMoves) {
  uint32_t seed = 100;
  for (DType dtype : copy_dtypes()) {
    Tensor x = distinct_tensor(dtype, {5, 7}, seed++);
    Tensor value = distinct_tensor(dtype, {}, seed++);
    for (fb::PadMode mode : kModes) expect_cpu_matches_reference_exactly(pad_op(mode), {x, i64s({2, 1, 3, 4})});
    expect_cpu_matches_reference_exactly(pad_op(fb::PadMode::Constant), {x, i64s({2, 1, 3, 4}), value});
  }
}

// numpy: np.pad(x, ((1, 0), (2, 1)), constant_values=1.5) for x = np.arange(6.).reshape(2, 3)
TEST(PadOps, ConstantReferenceMatchesNumpy) {
  auto y = run_reference(pad_op(fb::PadMode::Constant),
                         {iota_f32({2, 3}), i64s({1, 2, 0, 1}), Tensor::from_vector<float>({}, {1.5f})});
  ASSERT_EQ(y.size(), 1u);
  expect_tensors_near(y[0],
                      Tensor::from_vector<float>({3, 6}, {1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 0, 1, 2, 1.5,
                                                          1.5, 1.5, 3, 4, 5, 1.5}),
                      0, 0);
}

// numpy: np.pad(x, ((1, 1), (2, 4)), mode='reflect'), np.pad(x, ((0, 2), (1, 1)), mode='edge'),
// np.pad(x, ((1, 1), (4, 2)), mode='wrap') for x = np.arange(6.).reshape(2, 3)
TEST(PadOps, ReflectEdgeWrapReferenceMatchNumpy) {
  auto reflect = run_reference(pad_op(fb::PadMode::Reflect), {iota_f32({2, 3}), i64s({1, 2, 1, 4})});
  ASSERT_EQ(reflect.size(), 1u);
  expect_tensors_near(reflect[0],
                      Tensor::from_vector<float>({4, 9}, {5, 4, 3, 4, 5, 4, 3, 4, 5, 2, 1, 0, 1, 2, 1, 0, 1, 2,
                                                          5, 4, 3, 4, 5, 4, 3, 4, 5, 2, 1, 0, 1, 2, 1, 0, 1, 2}),
                      0, 0);
  auto edge = run_reference(pad_op(fb::PadMode::Edge), {iota_f32({2, 3}), i64s({0, 1, 2, 1})});
  ASSERT_EQ(edge.size(), 1u);
  expect_tensors_near(edge[0],
                      Tensor::from_vector<float>({4, 5}, {0, 0, 1, 2, 2, 3, 3, 4, 5, 5, 3, 3, 4, 5, 5, 3, 3, 4, 5, 5}),
                      0, 0);
  auto wrap = run_reference(pad_op(fb::PadMode::Wrap), {iota_f32({2, 3}), i64s({1, 4, 1, 2})});
  ASSERT_EQ(wrap.size(), 1u);
  expect_tensors_near(wrap[0],
                      Tensor::from_vector<float>({4, 9}, {5, 3, 4, 5, 3, 4, 5, 3, 4, 2, 0, 1, 2, 0, 1, 2, 0, 1,
                                                          5, 3, 4, 5, 3, 4, 5, 3, 4, 2, 0, 1, 2, 0, 1, 2, 0, 1}),
                      0, 0);
}

// Negative pads crop first, then the mode pads what is left. numpy:
// np.pad(x[1:, :-1], ((0, 1), (1, 0)), constant_values=9) and
// np.pad(x[:, 1:], ((0, 0), (0, 3)), mode='reflect') for x = np.arange(6.).reshape(2, 3)
TEST(PadOps, NegativePadsReferenceMatchesNumpy) {
  auto crop = run_reference(pad_op(fb::PadMode::Constant),
                            {iota_f32({2, 3}), i64s({-1, 1, 1, -1}), Tensor::from_vector<float>({1}, {9})});
  ASSERT_EQ(crop.size(), 1u);
  expect_tensors_near(crop[0], Tensor::from_vector<float>({2, 3}, {9, 3, 4, 9, 9, 9}), 0, 0);
  auto reflect = run_reference(pad_op(fb::PadMode::Reflect), {iota_f32({2, 3}), i64s({-1, 3}), std::nullopt, i64s({1})});
  ASSERT_EQ(reflect.size(), 1u);
  expect_tensors_near(reflect[0], Tensor::from_vector<float>({2, 5}, {1, 2, 1, 2, 1, 4, 5, 4, 5, 4}), 0, 0);
}

TEST(PadOps, ShapeErrorsAreReported) {
  Tensor x = iota_f32({2, 3});
  const fb::OpT constant = pad_op(fb::PadMode::Constant);
  expect_rejected(constant, {x, i64s({1, 1, 1})}, "expected 2 x 2 axes");
  expect_rejected(constant, {x, i64s({-3, 1, 0, 0})}, "crop more than");
  expect_rejected(constant, {x, i64s({1, 1, 1, 1}), std::nullopt, i64s({1, -1})}, "repeats");
  expect_rejected(constant, {x, i64s({1, 1}), std::nullopt, i64s({2})}, "out of range");
  expect_rejected(constant, {x, i64s({1, 1, 1, 1}), Tensor::from_vector<int32_t>({}, {1})}, "'constant_value' is i32");
  expect_rejected(constant, {x, i64s({1, 1, 1, 1}), Tensor::from_vector<float>({2}, {1, 2})}, "must be a scalar");
  expect_rejected(pad_op(fb::PadMode::Edge), {x, i64s({-2, 1}), std::nullopt, i64s({0})}, "no data");
  expect_rejected(pad_op(fb::PadMode::Reflect), {Tensor::zeros(DType::F32, {0, 3}), i64s({1, 0, 0, 0})}, "no data");
  expect_rejected(pad_op(static_cast<fb::PadMode>(9)), {x, i64s({1, 1, 1, 1})}, "unknown mode");
}

}  // namespace
}  // namespace mote::test
