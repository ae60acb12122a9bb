// Normalisation layers and window pooling on Vulkan against the reference
// kernels: odd sizes, parameters as constants and as graph inputs, optional
// outputs, attribute variants, f32 and f16 storage.
#include <algorithm>
#include <cmath>

#include "tests/vulkan/vk_test_util.hpp"
#include "tests/support/op_attrs.hpp"

namespace mote::test {
namespace {

using fb::OpType;

const Tolerance kNormTol{1e-4, 1e-4, 1e-2, 1e-2};
constexpr uint32_t kAllGraphInputs = 0;

fb::OpT norm_op(OpType type, float epsilon = 1e-5f, int64_t axis = -1) {
  fb::NormAttrsT a;
  a.epsilon = epsilon;
  a.axis = axis;
  return make_op(type, a);
}

TEST(BatchNormVk, MatchesReference) {
  MOTE_REQUIRE_VULKAN();
  const Shape shapes[] = {{1, 1}, {1, 13}, {2, 3, 5, 7}, {1, 127, 3}, {2, 3, 2, 3, 2}};
  uint32_t seed = 1;
  for (const Shape& s : shapes) {
    Shape c = {s[1]};
    Inputs in = {random_tensor(DType::F32, s, seed++, -3.0, 3.0), random_tensor(DType::F32, c, seed++),
                 random_tensor(DType::F32, c, seed++), random_tensor(DType::F32, c, seed++),
                 random_tensor(DType::F32, c, seed++, 0.1, 2.0)};
    expect_vulkan_matches_reference(norm_op(OpType::BatchNormalization, 1e-3f), in, kNormTol, 0b11110);
    expect_vulkan_matches_reference(norm_op(OpType::BatchNormalization, 1e-3f), in, kNormTol, kAllGraphInputs);
  }
}

TEST(BatchNormVk, TrainingModeRunsOnCpu) {
  MOTE_REQUIRE_VULKAN();
  fb::OpT op = norm_op(OpType::BatchNormalization);
  op.nn.AsNormAttrs()->training_mode = true;
  Shape c = {3};
  Inputs in = {random_tensor(DType::F32, {2, 3, 4}, 1), random_tensor(DType::F32, c, 2),
               random_tensor(DType::F32, c, 3), random_tensor(DType::F32, c, 4),
               random_tensor(DType::F32, c, 5, 0.1, 2.0)};
  auto run = run_op_vulkan(op, in, GpuPrecision::kF32, 0b11110);
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  EXPECT_EQ(run->placement[0].device, "cpu");
  EXPECT_NE(run->placement[0].reason.find("training_mode"), std::string::npos) << run->placement[0].reason;
}

TEST(InstanceNormVk, MatchesReference) {
  MOTE_REQUIRE_VULKAN();
  const Shape shapes[] = {{1, 1, 1}, {2, 3, 13}, {1, 4, 5, 7}, {2, 2, 3000}, {1, 3, 2, 3, 5}};
  uint32_t seed = 1;
  for (const Shape& s : shapes) {
    Shape c = {s[1]};
    Inputs in = {random_tensor(DType::F32, s, seed++, -3.0, 3.0), random_tensor(DType::F32, c, seed++),
                 random_tensor(DType::F32, c, seed++)};
    expect_vulkan_matches_reference(norm_op(OpType::InstanceNormalization), in, kNormTol, 0b110);
    expect_vulkan_matches_reference(norm_op(OpType::InstanceNormalization), in, kNormTol, kAllGraphInputs);
  }
}

struct LayerNormCase {
  Shape x;
  int64_t axis;
  Shape scale, bias;  // bias {} with has_bias false: omitted
  bool has_bias = true;
};

TEST(LayerNormVk, MatchesReference) {
  MOTE_REQUIRE_VULKAN();
  const LayerNormCase cases[] = {
      {{1}, -1, {1}, {1}},
      {{3, 13}, -1, {13}, {13}},
      {{2, 3, 127}, 1, {3, 127}, {3, 127}},  // several normalised dims, dense
      {{2, 3, 127}, 1, {127}, {3, 1}},       // broadcast parameters
      {{4, 3000}, -1, {3000}, {}, false},    // long rows, no bias
      {{130, 256}, -1, {256}, {256}},        // a transformer's rows: per invocation on CPU-type devices
      {{7, 257}, -1, {257}, {257}},          // just past that: a workgroup each
      {{2, 3, 4, 5}, 0, {3, 1, 5}, {1}},
  };
  uint32_t seed = 1;
  for (const LayerNormCase& c : cases) {
    Inputs in = {random_tensor(DType::F32, c.x, seed++, -3.0, 3.0), random_tensor(DType::F32, c.scale, seed++)};
    if (c.has_bias) in.push_back(random_tensor(DType::F32, c.bias, seed++));
    expect_vulkan_matches_reference(norm_op(OpType::LayerNormalization, 1e-5f, c.axis), in, kNormTol, 0b110);
    expect_vulkan_matches_reference(norm_op(OpType::LayerNormalization, 1e-5f, c.axis), in, kNormTol,
                                    kAllGraphInputs);
  }
}

TEST(LayerNormVk, MeanAndInvStdDevOutputs) {
  MOTE_REQUIRE_VULKAN();
  Inputs in = {random_tensor(DType::F32, {5, 3, 13}, 1, -3.0, 3.0), random_tensor(DType::F32, {13}, 2),
               random_tensor(DType::F32, {13}, 3)};
  for (int outputs : {2, 3}) {
    fb::OpT op = norm_op(OpType::LayerNormalization, 1e-5f, -1);
    op.outputs.assign(static_cast<size_t>(outputs), 0);  // the shape function counts them
    expect_vulkan_matches_reference(op, in, kNormTol, 0b110);
  }
}

class PoolVk : public ::testing::TestWithParam<OpType> {};

TEST_P(PoolVk, Common2dWindows) {
  MOTE_REQUIRE_VULKAN();
  const PoolParams cases[] = {
      {{3, 3}, {1, 1}, {1, 1, 1, 1}}, {{3, 3}, {2, 2}, {1, 1, 1, 1}}, {{2, 2}, {2, 2}}, {{3, 3}},
      {{2, 2}, {2, 2}, {0, 0, 1, 1}},
  };
  uint32_t seed = 1;
  for (const PoolParams& p : cases) {
    for (int64_t n : odd_sizes()) {
      const int64_t h = std::max<int64_t>(n, 3);
      expect_vulkan_matches_reference(pool_op(GetParam(), p), {random_tensor(DType::F32, {2, 3, h, n + 2}, seed++)});
    }
  }
}

TEST_P(PoolVk, AttributeVariants) {
  MOTE_REQUIRE_VULKAN();
  uint32_t seed = 1;
  for (const PoolParams& p : pool_attribute_variants()) {
    expect_vulkan_matches_reference(pool_op(GetParam(), p), {random_tensor(DType::F32, {1, 3, 13, 11}, seed++)});
  }
}

TEST_P(PoolVk, OneAndThreeSpatialDims) {
  MOTE_REQUIRE_VULKAN();
  PoolParams one{{3}, {2}, {1, 1}};
  PoolParams three{{2, 3, 2}, {1, 2, 2}, {0, 1, 1, 1, 1, 0}};
  for (bool count_pad : {false, true}) {
    one.count_include_pad = three.count_include_pad = count_pad;
    expect_vulkan_matches_reference(pool_op(GetParam(), one), {random_tensor(DType::F32, {2, 3, 127}, 1)});
    expect_vulkan_matches_reference(pool_op(GetParam(), three), {random_tensor(DType::F32, {1, 2, 5, 7, 6}, 2)});
  }
}

INSTANTIATE_TEST_SUITE_P(All, PoolVk, ::testing::Values(OpType::MaxPool, OpType::AveragePool),
                         [](const auto& info) { return std::string(op_type_name(info.param)); });

TEST(MaxPoolVk, IndicesOutput) {
  MOTE_REQUIRE_VULKAN();
  PoolParams p{{3, 3}, {2, 2}, {1, 1, 1, 1}};
  fb::OpT op = pool_op(OpType::MaxPool, p);
  op.outputs = {0, 0};  // Y and Indices
  // Rounded values: ties, where the first occurrence must win.
  Tensor x = random_tensor(DType::F32, {2, 3, 13, 9}, 5, -2.0, 2.0);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = std::round(x.data<float>()[i]);
  expect_vulkan_matches_reference(op, {x});
  PoolParams dilated{{2, 2}, {1, 1}, {1, 1, 1, 1}, {3, 3}};
  fb::OpT op2 = pool_op(OpType::MaxPool, dilated);
  op2.outputs = {0, 0};
  expect_vulkan_matches_reference(op2, {random_tensor(DType::F32, {1, 2, 5, 4}, 6)});
}

}  // namespace
}  // namespace mote::test
