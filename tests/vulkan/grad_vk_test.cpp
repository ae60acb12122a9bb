// The backward ops of training graphs (ConvGradWeight, MaxPoolGrad,
// AveragePoolGrad) on Vulkan against the reference kernels: 1 to 3 spatial
// dims, strides, pads, dilations, groups, ceil_mode, count_include_pad, odd
// sizes, f32 and f16 storage, X and dY as graph inputs (as in a training
// step) and as constants.
#include <algorithm>
#include <cmath>

#include "runtime/ops/conv_geometry.hpp"
#include "tests/support/op_attrs.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

using fb::OpType;

// Long sums (a weight's gradient adds N * output pixels products).
const Tolerance kGradTol{1e-4, 1e-4, 1e-2, 1e-2};
constexpr uint32_t kAllGraphInputs = 0;

struct ConvGradCase {
  const char* name;
  Shape x;
  std::vector<int64_t> kernel;
  fb::ConvAttrsT attrs;
  int64_t out_channels = 0;  // 0: two per group
};

fb::ConvAttrsT with_kernel(fb::ConvAttrsT a, std::vector<int64_t> kernel) {
  a.kernel_shape = std::move(kernel);
  return a;
}

TEST(ConvGradWeightVk, MatchesReference) {
  MOTE_REQUIRE_VULKAN();
  const ConvGradCase cases[] = {
      {"3x3 pad 1", {2, 3, 13, 11}, {3, 3}, conv_attrs({}, {1, 1, 1, 1})},
      {"stride 2, uneven pads", {1, 4, 13, 13}, {3, 2}, conv_attrs({2, 2}, {1, 0, 2, 1})},
      {"dilation 2", {2, 2, 11, 9}, {3, 3}, conv_attrs({1, 2}, {2, 2, 2, 2}, {2, 2})},
      {"groups 2", {2, 4, 7, 9}, {3, 3}, conv_attrs({}, {1, 1, 1, 1}, {}, 2)},
      {"depthwise x2", {1, 3, 8, 7}, {3, 3}, conv_attrs({}, {1, 1, 1, 1}, {}, 3)},
      {"1x1", {3, 5, 6, 6}, {1, 1}, conv_attrs()},
      {"same_upper", {1, 2, 10, 7}, {4, 3}, conv_attrs({2, 1}, {}, {}, 1, fb::AutoPad::SameUpper)},
      {"1-D", {2, 3, 127}, {5}, conv_attrs({2}, {2, 1})},
      // Rows longer than a work item's run, and than lavapipe's loop limit.
      {"1-D long", {1, 2, 70001}, {3}, conv_attrs({}, {1, 1})},
      {"2-D wide", {1, 2, 3, 200}, {3, 3}, conv_attrs({1, 3}, {1, 1, 1, 1})},
      {"3-D", {1, 2, 5, 6, 7}, {2, 3, 2}, conv_attrs({1, 2, 1}, {0, 1, 1, 1, 0, 0})},
      {"long sum", {4, 2, 64, 64}, {3, 3}, conv_attrs({}, {1, 1, 1, 1})},
      // Thousands of weights with short sums: one invocation per weight.
      {"many weights", {2, 16, 6, 5}, {3, 3}, conv_attrs({}, {1, 1, 1, 1}), 24},
      {"many weights, groups 4", {3, 32, 4, 4}, {3, 3}, conv_attrs({2, 1}, {1, 1, 1, 1}, {}, 4), 64},
  };
  uint32_t seed = 1;
  for (const ConvGradCase& c : cases) {
    SCOPED_TRACE(c.name);
    const int64_t group = std::max<int64_t>(c.attrs.group, 1);
    // M output channels, by default two per group (a depthwise multiplier of 2).
    Shape w = {c.out_channels > 0 ? c.out_channels : 2 * group, c.x[1] / group};
    w.insert(w.end(), c.kernel.begin(), c.kernel.end());
    auto g = resolve_conv(c.attrs, c.x, w);
    ASSERT_TRUE(g.ok()) << g.status().to_string();
    fb::OpT op = make_op(OpType::ConvGradWeight, with_kernel(c.attrs, c.kernel));
    Inputs in = {random_tensor(DType::F32, c.x, seed++), random_tensor(DType::F32, g->output_shape(), seed++)};
    expect_vulkan_matches_reference(op, in, kGradTol, kAllGraphInputs);
  }
}

TEST(ConvGradWeightVk, OddSizesWithConstantInputs) {
  MOTE_REQUIRE_VULKAN();
  uint32_t seed = 100;
  for (int64_t n : odd_sizes()) {
    SCOPED_TRACE(n);
    Shape x = {1, 2, n + 2, n};
    fb::ConvAttrsT a = conv_attrs({}, {1, 1, 1, 1});
    auto g = resolve_conv(a, x, {3, 2, 3, 1});
    ASSERT_TRUE(g.ok()) << g.status().to_string();
    Inputs in = {random_tensor(DType::F32, x, seed++), random_tensor(DType::F32, g->output_shape(), seed++)};
    expect_vulkan_matches_reference(make_op(OpType::ConvGradWeight, with_kernel(a, {3, 1})), in, kGradTol);
  }
}

// The forward pool's output shape, from the reference kernel.
Shape pool_output_shape(const PoolParams& p, const Shape& x) {
  auto y = run_op(pool_op(OpType::AveragePool, p), {random_tensor(DType::F32, x, 0)}, Impl::kReference);
  EXPECT_TRUE(y.ok()) << y.status().to_string();
  return y.ok() ? (*y)[0].shape() : Shape{};
}

class PoolGradVk : public ::testing::TestWithParam<OpType> {
 protected:
  void expect_matches(const PoolParams& p, const Tensor& x, uint32_t seed) {
    Shape y = pool_output_shape(p, x.shape());
    ASSERT_FALSE(y.empty());
    expect_vulkan_matches_reference(pool_op(GetParam(), p), {x, random_tensor(DType::F32, y, seed)}, kGradTol,
                                    kAllGraphInputs);
  }
};

TEST_P(PoolGradVk, Common2dWindows) {
  MOTE_REQUIRE_VULKAN();
  const PoolParams cases[] = {
      {{3, 3}, {1, 1}, {1, 1, 1, 1}}, {{3, 3}, {2, 2}, {1, 1, 1, 1}}, {{2, 2}, {2, 2}}, {{3, 3}},
      {{2, 2}, {2, 2}, {0, 0, 1, 1}},
  };
  uint32_t seed = 1;
  for (const PoolParams& p : cases) {
    for (int64_t n : odd_sizes()) {
      const int64_t h = std::max<int64_t>(n, 3);
      expect_matches(p, random_tensor(DType::F32, {2, 3, h, n + 2}, seed), seed + 1000);
      ++seed;
    }
  }
}

TEST_P(PoolGradVk, AttributeVariants) {
  MOTE_REQUIRE_VULKAN();
  uint32_t seed = 1;
  for (const PoolParams& p : pool_attribute_variants()) {
    expect_matches(p, random_tensor(DType::F32, {1, 3, 13, 11}, seed), seed + 1000);
    ++seed;
  }
}

TEST_P(PoolGradVk, OneAndThreeSpatialDims) {
  MOTE_REQUIRE_VULKAN();
  PoolParams one{{3}, {2}, {1, 1}};
  PoolParams three{{2, 3, 2}, {1, 2, 2}, {0, 1, 1, 1, 1, 0}};
  for (bool count_pad : {false, true}) {
    one.count_include_pad = three.count_include_pad = count_pad;
    expect_matches(one, random_tensor(DType::F32, {2, 3, 127}, 1), 2);
    expect_matches(three, random_tensor(DType::F32, {1, 2, 5, 7, 6}, 3), 4);
  }
}

INSTANTIATE_TEST_SUITE_P(All, PoolGradVk, ::testing::Values(OpType::MaxPoolGrad, OpType::AveragePoolGrad),
                         [](const auto& info) { return std::string(op_type_name(info.param)); });

TEST(MaxPoolGradVk, TiesGoToTheFirstMaximum) {
  MOTE_REQUIRE_VULKAN();
  // Small integers: many windows hold their maximum twice, and overlapping
  // windows (stride 1) pick the same element, whose gradients then add up.
  Tensor x = random_tensor(DType::F32, {2, 3, 13, 9}, 5, -2.0, 2.0);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = std::round(x.data<float>()[i]);
  for (const PoolParams& p : {PoolParams{{3, 3}, {1, 1}, {1, 1, 1, 1}}, PoolParams{{3, 3}, {2, 2}, {1, 1, 1, 1}}}) {
    Shape y = pool_output_shape(p, x.shape());
    expect_vulkan_matches_reference(pool_op(OpType::MaxPoolGrad, p), {x, random_tensor(DType::F32, y, 6)}, kGradTol,
                                    kAllGraphInputs);
  }
}

TEST(MaxPoolGradVk, NaNWinsItsWindow) {
  MOTE_REQUIRE_VULKAN();
  Tensor x = random_tensor(DType::F32, {1, 2, 7, 7}, 7);
  x.data<float>()[10] = std::nanf("");
  x.data<float>()[60] = std::nanf("");
  PoolParams p{{3, 3}, {2, 2}, {1, 1, 1, 1}};
  Shape y = pool_output_shape(p, x.shape());
  expect_vulkan_matches_reference(pool_op(OpType::MaxPoolGrad, p), {x, random_tensor(DType::F32, y, 8)}, kGradTol,
                                  kAllGraphInputs);
}

}  // namespace
}  // namespace mote::test
