#include <cmath>
#include <limits>
#include <vector>

#include "tests/support/op_test_util.hpp"
#include "tests/support/simd_targets.hpp"

namespace mote::test {
namespace {

fb::OpT softmax_op(fb::OpType type, int64_t axis) {
  fb::AxisAttrsT a;
  a.axis = axis;
  return make_op(type, a);
}

const fb::OpType kBothOps[] = {fb::OpType::Softmax, fb::OpType::LogSoftmax};

TEST(SoftmaxOps, InnermostAxisCpuMatchesReference) {
  for (fb::OpType type : kBothOps) {
    for (int64_t n : odd_sizes()) {
      expect_cpu_matches_reference(make_op(type), {random_tensor(DType::F32, {3, n}, 1, -5, 5)});
      expect_cpu_matches_reference(softmax_op(type, 2), {random_tensor(DType::F32, {2, 3, n}, 2, -5, 5)});
      expect_cpu_matches_reference(softmax_op(type, -1), {random_tensor(DType::F32, {n, 2}, 3, -5, 5)});
    }
    // Longer than one SIMD sum block (4096), and large magnitudes.
    expect_cpu_matches_reference(make_op(type), {random_tensor(DType::F32, {2, 9001}, 4, -40, 40)});
    // Logits down to 120 below the max: past the exponential's clamp at -87.
    expect_cpu_matches_reference(make_op(type), {random_tensor(DType::F32, {3, 301}, 11, -60, 60)});
  }
}

TEST(SoftmaxOps, StridedAxisCpuMatchesReference) {
  for (fb::OpType type : kBothOps) {
    for (int64_t n : odd_sizes()) {
      expect_cpu_matches_reference(softmax_op(type, 0), {random_tensor(DType::F32, {n, 5}, 5, -5, 5)});
      expect_cpu_matches_reference(softmax_op(type, 0), {random_tensor(DType::F32, {5, n}, 6, -5, 5)});
      expect_cpu_matches_reference(softmax_op(type, -2), {random_tensor(DType::F32, {2, n, 3, 7}, 7, -5, 5)});
      expect_cpu_matches_reference(softmax_op(type, 1), {random_tensor(DType::F32, {1, 4, n}, 8, -5, 5)});
    }
    // More columns than one strided block (512) and a rank-1 input.
    expect_cpu_matches_reference(softmax_op(type, 1), {random_tensor(DType::F32, {2, 3, 1100}, 9, -5, 5)});
    expect_cpu_matches_reference(softmax_op(type, 0), {random_tensor(DType::F32, {13}, 10, -5, 5)});
    expect_cpu_matches_reference(softmax_op(type, 0), {random_tensor(DType::F32, {40, 37}, 12, -60, 60)});
  }
}

TEST(SoftmaxOps, DefaultAxisIsLast) {
  Tensor x = random_tensor(DType::F32, {4, 6}, 11);
  auto by_default = run_op(make_op(fb::OpType::Softmax), {x}, Impl::kCpu);
  auto explicit_last = run_op(softmax_op(fb::OpType::Softmax, 1), {x}, Impl::kCpu);
  ASSERT_TRUE(by_default.ok() && explicit_last.ok());
  expect_tensors_near((*by_default)[0], (*explicit_last)[0], 0, 0);
}

// x = np.array([[1, 2, 3], [-1, 0, 5]], np.float64)
// softmax(x, axis) = e / e.sum(axis, keepdims=True) with e = np.exp(x - x.max(axis, keepdims=True))
TEST(SoftmaxOps, SoftmaxReferenceMatchesNumpy) {
  Tensor x = Tensor::from_vector<float>({2, 3}, {1, 2, 3, -1, 0, 5});
  auto last = run_op(softmax_op(fb::OpType::Softmax, -1), {x}, Impl::kReference);
  ASSERT_TRUE(last.ok()) << last.status().to_string();
  expect_tensors_near((*last)[0],
                      Tensor::from_vector<float>(
                          {2, 3}, {0.09003057f, 0.24472848f, 0.66524094f, 0.002456115f, 0.006676413f, 0.9908675f}),
                      1e-6, 1e-7);
  auto first = run_op(softmax_op(fb::OpType::Softmax, 0), {x}, Impl::kReference);
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  expect_tensors_near(
      (*first)[0],
      Tensor::from_vector<float>({2, 3}, {0.8807971f, 0.8807971f, 0.11920292f, 0.11920292f, 0.11920292f, 0.8807971f}),
      1e-6, 1e-7);
}

// log_softmax(x, axis) = x - m - np.log(np.exp(x - m).sum(axis, keepdims=True)), m = x.max(axis, keepdims=True)
TEST(SoftmaxOps, LogSoftmaxReferenceMatchesNumpy) {
  Tensor x = Tensor::from_vector<float>({2, 3}, {1, 2, 3, -1, 0, 5});
  auto last = run_op(softmax_op(fb::OpType::LogSoftmax, 1), {x}, Impl::kReference);
  ASSERT_TRUE(last.ok()) << last.status().to_string();
  expect_tensors_near((*last)[0],
                      Tensor::from_vector<float>(
                          {2, 3}, {-2.407606f, -1.407606f, -0.40760598f, -6.0091743f, -5.0091743f, -0.009174485f}),
                      1e-6, 1e-7);
  auto first = run_op(softmax_op(fb::OpType::LogSoftmax, -2), {x}, Impl::kReference);
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  expect_tensors_near((*first)[0],
                      Tensor::from_vector<float>(
                          {2, 3}, {-0.12692802f, -0.12692802f, -2.126928f, -2.126928f, -2.126928f, -0.12692802f}),
                      1e-6, 1e-7);
}

// A -inf logit (an attention mask) gets probability exactly 0 on both paths,
// on every SIMD target (the portable ones once converted -inf to int32 inside
// the vector exponential, undefined behaviour that clang's UBSan reports).
// x = np.array([0.5, -np.inf, 1.5]): softmax = [0.268941421, 0, 0.731058579],
// log_softmax = [-1.313261688, -inf, -0.313261688]
TEST(SoftmaxOps, MinusInfinityGivesZeroProbability) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x = Tensor::from_vector<float>({3}, {0.5f, -inf, 1.5f});
  for_each_simd_target([&] {
    for (Impl impl : {Impl::kReference, Impl::kCpu}) {
      auto y = run_op(make_op(fb::OpType::Softmax), {x}, impl);
      ASSERT_TRUE(y.ok()) << y.status().to_string();
      expect_tensors_near((*y)[0], Tensor::from_vector<float>({3}, {0.268941421f, 0.0f, 0.731058579f}), 1e-6, 0,
                          impl_name(impl));
      auto z = run_op(make_op(fb::OpType::LogSoftmax), {x}, impl);
      ASSERT_TRUE(z.ok()) << z.status().to_string();
      expect_tensors_near((*z)[0], Tensor::from_vector<float>({3}, {-1.313261688f, -inf, -0.313261688f}), 1e-6, 0,
                          impl_name(impl));
    }
  });
}

// A NaN logit, or a row that is all -inf (x - max is NaN), makes the whole
// row NaN, as numpy's np.exp(x - x.max()) / sum does; the other row is
// untouched. Rows of 19 cover full vectors and a tail on every target.
// Logits more than 87 below their row's max get exactly 0, as masked ones
// do (the exponential's clamp is turned into 0 there, where e^x is under
// 1.7e-38), in Softmax and in a fused Attention's probabilities.
TEST(SoftmaxOps, LogitsFarBelowTheMaxGiveZero) {
  const std::vector<float> logits = {0.0f, -20.0f, -88.0f, -150.0f, 3.0f, -200.0f, 1.0f, -87.5f};
  auto y = run_op(make_op(fb::OpType::Softmax), {Tensor::from_vector<float>({1, 8}, logits)}, Impl::kCpu);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  const float* p = (*y)[0].data<float>();
  for (int i : {2, 3, 5, 7}) EXPECT_EQ(p[i], 0.0f) << "logit " << logits[static_cast<size_t>(i)];
  EXPECT_GT(p[1], 0.0f);
}

TEST(SoftmaxOps, NaNAndAllMaskedRowsGiveNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> values(3 * 19, 0.0f);
  values[5] = nan;                                                      // row 0: one NaN
  for (int i = 19; i < 38; ++i) values[static_cast<size_t>(i)] = -inf;  // row 1: all masked
  const Tensor x = Tensor::from_vector<float>({3, 19}, values);         // row 2: all 0
  for_each_simd_target([&] {
    for (Impl impl : {Impl::kReference, Impl::kCpu}) {
      auto y = run_op(make_op(fb::OpType::Softmax), {x}, impl);
      ASSERT_TRUE(y.ok()) << y.status().to_string();
      const float* p = (*y)[0].data<float>();
      for (int i = 0; i < 38; ++i) EXPECT_TRUE(std::isnan(p[i])) << impl_name(impl) << " element " << i;
      for (int i = 38; i < 57; ++i) EXPECT_NEAR(p[i], 1.0f / 19.0f, 1e-7f) << impl_name(impl) << " element " << i;
    }
  });
}

// Large logits: x - max must be taken before subtracting log(sum), or float
// rounding at 1e4 eats the result. x = np.array([10000, 10001, 10002, 10003.]);
// m = x.max(); x - m - np.log(np.exp(x - m).sum())
TEST(SoftmaxOps, LogSoftmaxKeepsPrecisionForLargeLogits) {
  const Tensor expected = Tensor::from_vector<float>({4}, {-3.4401897f, -2.4401897f, -1.4401897f, -0.44018970f});
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    auto y =
        run_op(make_op(fb::OpType::LogSoftmax), {Tensor::from_vector<float>({4}, {10000, 10001, 10002, 10003})}, impl);
    ASSERT_TRUE(y.ok()) << y.status().to_string();
    expect_tensors_near((*y)[0], expected, 1e-6, 0, impl_name(impl));
    auto columns = run_op(softmax_op(fb::OpType::LogSoftmax, 0),
                          {Tensor::from_vector<float>({4, 1}, {10000, 10001, 10002, 10003})}, impl);
    ASSERT_TRUE(columns.ok()) << columns.status().to_string();
    expect_tensors_near((*columns)[0], expected.reshaped({4, 1}), 1e-6, 0, impl_name(impl));
  }
}

TEST(SoftmaxOps, ShapeErrors) {
  for (fb::OpType type : kBothOps) {
    auto bad_axis = run_op(softmax_op(type, 2), {random_tensor(DType::F32, {2, 3}, 1)}, Impl::kCpu);
    EXPECT_EQ(bad_axis.status().code(), StatusCode::kInvalidModel);
    auto bad_negative_axis = run_op(softmax_op(type, -3), {random_tensor(DType::F32, {2, 3}, 1)}, Impl::kCpu);
    EXPECT_EQ(bad_negative_axis.status().code(), StatusCode::kInvalidModel);
    auto int_input = run_op(make_op(type), {random_tensor(DType::I32, {2, 3}, 1)}, Impl::kCpu);
    EXPECT_EQ(int_input.status().code(), StatusCode::kInvalidModel);
    auto scalar = run_op(make_op(type), {Tensor::from_vector<float>({}, {1.0f})}, Impl::kCpu);
    EXPECT_EQ(scalar.status().code(), StatusCode::kInvalidModel);
  }
}

TEST(SoftmaxOps, EmptyInputIsFine) {
  expect_cpu_matches_reference(softmax_op(fb::OpType::Softmax, 0), {Tensor::zeros(DType::F32, {0, 4})});
  expect_cpu_matches_reference(softmax_op(fb::OpType::LogSoftmax, 1), {Tensor::zeros(DType::F32, {3, 0})});
}

}  // namespace
}  // namespace mote::test
