// Attention on Vulkan against the reference kernel: 4-D heads, grouped
// heads, the one-head 3-D form the converter's attention fusion writes,
// masks shared by every batch and head (including a row masked everywhere,
// which gives zeros), and the forms that stay on the CPU with their reason.
#include <limits>

#include "tests/support/op_attrs.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

// Sums over up to a few hundred keys in another order than the
// double-precision reference; f16 storage rounds the scores and outputs.
const Tolerance kTol{1e-4, 1e-5, 2e-2, 2e-2};

fb::OpT attention_op(bool three_d, float scale = 0.0f, bool causal = false) {
  fb::AttentionAttrsT a;
  a.scale = scale;
  a.is_causal = causal;
  if (three_d) a.q_num_heads = a.kv_num_heads = 1;
  return make_op(fb::OpType::Attention, a);
}

// Q [.., q, d], K [.., kv, d], V [.., kv, dv] with the given leading dims
// (Q's heads first, K's and V's second).
Inputs qkv(const Shape& q_lead, const Shape& kv_lead, int64_t q, int64_t kv, int64_t d, int64_t dv, uint32_t seed) {
  auto with = [](Shape lead, int64_t len, int64_t size) {
    lead.push_back(len);
    lead.push_back(size);
    return lead;
  };
  return {random_tensor(DType::F32, with(q_lead, q, d), seed, -2, 2),
          random_tensor(DType::F32, with(kv_lead, kv, d), seed + 1, -2, 2),
          random_tensor(DType::F32, with(kv_lead, kv, dv), seed + 2)};
}

TEST(AttentionVk, MatchesReference) {
  MOTE_REQUIRE_VULKAN();
  // A transformer encoder's heads; grouped heads with short keys (the scores
  // product runs transposed); the converter's one-head 3-D form.
  expect_vulkan_matches_reference(attention_op(false), qkv({1, 4}, {1, 4}, 128, 128, 32, 32, 1), kTol);
  expect_vulkan_matches_reference(attention_op(false, 0.25f), qkv({2, 6}, {2, 2}, 70, 45, 8, 5, 2), kTol);
  expect_vulkan_matches_reference(attention_op(true, 0.5f), qkv({3}, {3}, 5, 7, 8, 2, 3), kTol);
}

// With f16 products asked for (SessionOptions::gpu_f16_arithmetic),
// Attention keeps f32 products on the same GEMM shaders: it sums Q K^T
// before scaling it (execution_plan_gpu.cpp, takes_f16_products).
TEST(AttentionVk, KeepsF32ProductsUnderF16Arithmetic) {
  MOTE_REQUIRE_VULKAN();
  if (!device_has_fp16_storage()) GTEST_SKIP() << "no f16 storage";
  SessionOptions options;
  options.gpu_f16_arithmetic = true;
  auto run = run_op_vulkan(attention_op(false), qkv({1, 2}, {1, 2}, 16, 16, 8, 8, 4), GpuPrecision::kF16Storage,
                           kValueInputs, options);
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  ASSERT_EQ(run->placement[0].device, "vulkan") << run->placement[0].reason;
  EXPECT_EQ(run->placement[0].precision, "f16");
  EXPECT_FALSE(run->placement[0].f16_arithmetic);
}

TEST(AttentionVk, SharedMasksAndAFullyMaskedRow) {
  MOTE_REQUIRE_VULKAN();
  Inputs in = qkv({2, 3}, {2, 3}, 17, 11, 8, 8, 5);
  in.push_back(random_tensor(DType::F32, {1, 11}, 9, -3, 0));  // one row for every query
  expect_vulkan_matches_reference(attention_op(false), in, kTol);
  Tensor mask = random_tensor(DType::F32, {17, 11}, 10, -3, 0);
  for (int64_t j = 0; j < 11; ++j) mask.data<float>()[4 * 11 + j] = -std::numeric_limits<float>::infinity();
  in.back() = mask;
  expect_vulkan_matches_reference(attention_op(false), in, kTol);
  auto run = run_op_vulkan(attention_op(false), in, GpuPrecision::kF32);
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  const float* y = run->outputs[0].data<float>();
  for (int64_t e = 0; e < 8; ++e) EXPECT_EQ(y[4 * 8 + e], 0.0f) << "query 4 attends to nothing";
}

TEST(AttentionVk, OtherFormsRunOnTheCpuAndSayWhy) {
  MOTE_REQUIRE_VULKAN();
  struct Form {
    std::string reason;
    fb::OpT op;
    Inputs inputs;
  };
  Inputs per_batch = qkv({2, 2}, {2, 2}, 4, 6, 4, 4, 1);
  per_batch.push_back(random_tensor(DType::F32, {2, 1, 4, 6}, 2));
  Inputs keep = qkv({1, 2}, {1, 2}, 4, 6, 4, 4, 3);
  keep.push_back(random_tensor(DType::Bool, {4, 6}, 4, 0, 2));
  const std::vector<Form> forms = {
      {"is_causal", attention_op(false, 0.0f, true), qkv({1, 2}, {1, 2}, 4, 6, 4, 4, 5)},
      {"varies by batch", attention_op(false), per_batch},
      {"input 3 is bool", attention_op(false), keep},
  };
  for (const Form& f : forms) {
    SCOPED_TRACE(f.reason);
    auto run = run_op_vulkan(f.op, f.inputs, GpuPrecision::kF32);
    ASSERT_TRUE(run.ok()) << run.status().to_string();
    ASSERT_FALSE(run->placement.empty());
    EXPECT_EQ(run->placement[0].device, "cpu");
    EXPECT_NE(run->placement[0].reason.find(f.reason), std::string::npos) << run->placement[0].reason;
  }
}

}  // namespace
}  // namespace mote::test
