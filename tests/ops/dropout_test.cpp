// Dropout: identity at inference; in training mode a mask drawn from (seed,
// step, index). Checked statistically (the kept fraction, independence of
// masks across steps), for determinism, and the CPU kernel bit for bit against
// the reference. Its gradient: tests/train/grad_ops_test.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/support/op_test_util.hpp"

namespace mote::test {
namespace {

fb::OpT dropout_op(float ratio, int64_t seed, bool training) {
  fb::DropoutAttrsT a;
  a.ratio = ratio;
  a.seed = seed;
  a.training_mode = training;
  return make_op(fb::OpType::Dropout, a);
}

Tensor step_tensor(int64_t step) { return Tensor::from_vector<int64_t>({}, {step}); }

// Runs a training-mode Dropout on ones: kept elements read 1 / (1 - ratio).
std::vector<bool> kept(float ratio, int64_t seed, int64_t step, int64_t n, Impl impl = Impl::kCpu) {
  auto out = run_op(dropout_op(ratio, seed, true), {Tensor::from_vector<float>({n}, std::vector<float>(n, 1.0f)), step_tensor(step)},
                    impl, 2);
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  std::vector<bool> mask;
  if (!out.ok()) return mask;
  const float scale = static_cast<float>(1.0 / (1.0 - double{ratio}));
  for (double v : (*out)[0].to_doubles()) {
    EXPECT_TRUE(v == 0.0 || v == double{scale}) << v;
    mask.push_back(v != 0.0);
  }
  return mask;
}

double dropped_fraction(const std::vector<bool>& mask, size_t begin, size_t end) {
  size_t dropped = 0;
  for (size_t i = begin; i < end; ++i) dropped += !mask[i];
  return static_cast<double>(dropped) / static_cast<double>(end - begin);
}

TEST(Dropout, DroppedFractionIsTheRatio) {
  const int64_t n = (1 << 17) + 3;
  for (float ratio : {0.1f, 0.5f, 0.8f}) {
    std::vector<bool> mask = kept(ratio, 42, 3, n);
    ASSERT_EQ(static_cast<int64_t>(mask.size()), n);
    // 5 standard deviations of a binomial over each half (and the whole).
    const double tol = 5.0 * std::sqrt(ratio * (1.0 - ratio) / (n / 2.0));
    EXPECT_NEAR(dropped_fraction(mask, 0, mask.size()), ratio, tol) << "ratio " << ratio;
    EXPECT_NEAR(dropped_fraction(mask, 0, mask.size() / 2), ratio, tol) << "ratio " << ratio << ", first half";
    EXPECT_NEAR(dropped_fraction(mask, mask.size() / 2, mask.size()), ratio, tol) << "ratio " << ratio << ", second half";
  }
  // Ratio 0 keeps everything, unscaled.
  std::vector<bool> all = kept(0.0f, 42, 3, 1000);
  EXPECT_EQ(dropped_fraction(all, 0, all.size()), 0.0);
}

TEST(Dropout, MasksOfStepsAndSeedsAreIndependent) {
  // Two independent masks of ratio r agree with probability r^2 + (1-r)^2.
  const int64_t n = 1 << 16;
  const double r = 0.5, expected = r * r + (1 - r) * (1 - r), tol = 5.0 * std::sqrt(0.25 / n);
  const std::vector<bool> base = kept(0.5f, 7, 10, n);
  for (auto [seed, step] : std::vector<std::pair<int64_t, int64_t>>{{7, 11}, {8, 10}, {7, 10 + (int64_t{1} << 32)}}) {
    const std::vector<bool> other = kept(0.5f, seed, step, n);
    size_t agree = 0;
    for (int64_t i = 0; i < n; ++i) agree += base[static_cast<size_t>(i)] == other[static_cast<size_t>(i)];
    EXPECT_NEAR(static_cast<double>(agree) / n, expected, tol) << "seed " << seed << " step " << step;
  }
  // Neighbouring elements are independent too: P(both kept) = (1-r)^2.
  size_t both = 0;
  for (int64_t i = 0; i + 1 < n; ++i) both += base[static_cast<size_t>(i)] && base[static_cast<size_t>(i) + 1];
  EXPECT_NEAR(static_cast<double>(both) / (n - 1), (1 - r) * (1 - r), tol);
}

TEST(Dropout, SameSeedAndStepSameMaskOnEveryKernel) {
  const int64_t n = 127 * 13;
  const std::vector<bool> first = kept(0.3f, 1234, 5, n, Impl::kCpu);
  EXPECT_EQ(kept(0.3f, 1234, 5, n, Impl::kCpu), first) << "repeated call";
  EXPECT_EQ(kept(0.3f, 1234, 5, n, Impl::kReference), first) << "reference kernel";
  // Scaled values too, on random inputs and several thread counts.
  expect_cpu_matches_reference(dropout_op(0.3f, 99, true),
                               {random_tensor(DType::F32, {3, 127, 13}, 1), step_tensor(12)}, 0.0, 0.0);
  // A mask depends on the index, not on the shape it is viewed with.
  auto flat = run_op(dropout_op(0.3f, 99, true), {Tensor::from_vector<float>({6}, {1, 2, 3, 4, 5, 6}), step_tensor(1)},
                     Impl::kCpu);
  auto shaped = run_op(dropout_op(0.3f, 99, true), {Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6}), step_tensor(1)},
                       Impl::kReference);
  ASSERT_TRUE(flat.ok() && shaped.ok());
  EXPECT_EQ((*flat)[0].to_doubles(), (*shaped)[0].to_doubles());
}

TEST(Dropout, InferenceModeIsIdentity) {
  Tensor x = random_tensor(DType::F32, {4, 13}, 3);
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    auto out = run_op(dropout_op(0.5f, 1, false), {x}, impl);
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    EXPECT_EQ((*out)[0].to_doubles(), x.to_doubles()) << impl_name(impl);
  }
}

TEST(Dropout, ErrorsNameTheProblem) {
  Tensor x = random_tensor(DType::F32, {4}, 3);
  auto no_step = run_op(dropout_op(0.5f, 1, true), {x}, Impl::kCpu);
  ASSERT_FALSE(no_step.ok());
  EXPECT_NE(no_step.status().message().find("step"), std::string::npos) << no_step.status().message();
  auto bad_ratio = run_op(dropout_op(1.0f, 1, true), {x, step_tensor(0)}, Impl::kReference);
  ASSERT_FALSE(bad_ratio.ok());
  EXPECT_NE(bad_ratio.status().message().find("ratio"), std::string::npos) << bad_ratio.status().message();
  auto float_step = run_op(dropout_op(0.5f, 1, true), {x, Tensor::from_vector<float>({}, {1.0f})}, Impl::kCpu);
  ASSERT_FALSE(float_step.ok());
  EXPECT_NE(float_step.status().message().find("step"), std::string::npos) << float_step.status().message();
}

}  // namespace
}  // namespace mote::test
