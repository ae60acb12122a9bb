// QLinearConv on Vulkan (qlinear_conv_dot.comp on one group where the
// device has the integer dot product, as lavapipe does; qlinear_conv.comp
// otherwise, and everywhere under CTest's vulkan_int8_without_dot) against
// the reference kernel
// (exact integer sums, requantised in double): the shader requantises in
// f32, so an output may be one quantum off where the exact value lies
// within float rounding of a tie, a handful in a thousand at most. Types,
// per-tensor and per-channel weights, padding, strides, dilation, groups,
// depthwise, 1-D, fused activations and residuals; X and the residual are
// graph inputs, the parameters constants. On lavapipe the shader runs only
// with MOTE_VK_FORCE_INT8=1 (CTest's vulkan_int8_forced does that).
#include <vector>

#include "tests/ops/fused_activation_util.hpp"
#include "tests/support/op_attrs.hpp"
#include "tests/support/qlinear_conv_cases.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

// Every input a constant but X (bit 0) and the residual (bit 9).
constexpr uint32_t kParamsConstant = ~((1u << 0) | (1u << 9));

void expect_vulkan_qlinear_conv(const Shape& x, const Shape& w, const fb::ConvAttrsT& a, const QuantCase& q,
                                const fb::FusedActivationT* act = nullptr, uint32_t seed = 1) {
  std::optional<QLinearConvCase> c = qlinear_conv_case(x, w, a, q, act, seed);
  ASSERT_TRUE(c) << "invalid geometry";
  SCOPED_TRACE(c->label);
  auto expected = run_op(c->op, c->inputs, Impl::kReference);
  ASSERT_TRUE(expected.ok()) << expected.status().to_string();
  const Tensor& ref = (*expected)[0];
  EXPECT_GE(distinct_bytes(ref), std::min<int64_t>(ref.numel() / 4, 24)) << "outputs too uniform";
  // Bytes are bytes in either storage mode; both must give the same.
  for (GpuPrecision precision : {GpuPrecision::kF32, GpuPrecision::kF16Storage}) {
    auto actual = run_op_vulkan(c->op, c->inputs, precision, kParamsConstant);
    ASSERT_TRUE(actual.ok()) << actual.status().to_string();
    ASSERT_FALSE(actual->placement.empty());
    ASSERT_EQ(actual->placement[0].device, "vulkan") << actual->placement[0].reason;
    expect_tensors_near(actual->outputs[0], ref, 0.0, 1.0);
    const int64_t off = bytes_off(actual->outputs[0], ref);
    EXPECT_LE(off, 2 + ref.numel() / 200) << off << " of " << ref.numel() << " outputs off by one";
  }
}

TEST(QLinearConvVk, MatchesReference) {
  MOTE_REQUIRE_INT8_SHADERS();
  struct Variant {
    Shape x, w;
    fb::ConvAttrsT attrs;
  };
  const std::vector<Variant> variants = {
      {{1, 3, 7, 10}, {4, 3, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1})},
      {{2, 3, 9, 9}, {5, 3, 3, 3}, conv_attrs({2, 2}, {0, 1, 2, 1})},           // asymmetric pads, stride 2, 2 images
      {{1, 2, 11, 10}, {3, 2, 3, 3}, conv_attrs({1, 1}, {2, 2, 2, 2}, {2, 2})},  // dilation
      {{1, 4, 6, 7}, {6, 2, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1}, {}, 2)},     // groups
      {{1, 8, 9, 9}, {8, 1, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 8)},     // depthwise
      {{1, 33, 5, 5}, {17, 33, 1, 1}, conv_attrs()},                             // pointwise, odd depth
      {{1, 3, 127}, {4, 3, 5}, conv_attrs({2}, {2, 2})},                         // 1-D
  };
  const std::vector<QuantCase> cases = {
      {DType::U8, DType::I8, DType::U8, true, true},
      {DType::I8, DType::I8, DType::I8, false, false},
      {DType::U8, DType::U8, DType::I8, false, true},
      {DType::I8, DType::U8, DType::U8, true, false},
  };
  uint32_t seed = 1;
  for (const Variant& v : variants) {
    for (const QuantCase& q : cases) expect_vulkan_qlinear_conv(v.x, v.w, v.attrs, q, nullptr, seed++);
  }
}

TEST(QLinearConvVk, FusedActivationsAndResiduals) {
  MOTE_REQUIRE_INT8_SHADERS();
  const fb::FusedActivationT relu = fused_activation(fb::ActivationKind::Relu);
  const fb::FusedActivationT clip = fused_activation(fb::ActivationKind::Clip, 0.0f, -20.0f, 40.0f);
  for (const auto* act : {&relu, &clip}) {
    expect_vulkan_qlinear_conv({1, 16, 9, 9}, {24, 16, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}), QuantCase{}, act);
  }
  QuantCase residual_u8;
  residual_u8.residual = DType::U8;
  QuantCase residual_i8{DType::I8, DType::I8, DType::I8, true, false, DType::I8};
  for (const QuantCase& q : {residual_u8, residual_i8}) {
    expect_vulkan_qlinear_conv({1, 6, 8, 9}, {6, 6, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}), q, nullptr, 7);
    expect_vulkan_qlinear_conv({1, 6, 8, 9}, {6, 6, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}), q, &relu, 8);
  }
}

// Scales computed at run time cannot be folded into the plan: the op runs
// on the CPU, with the reason.
TEST(QLinearConvVk, RunTimeScalesRunOnCpu) {
  MOTE_REQUIRE_INT8_SHADERS();
  std::optional<QLinearConvCase> c = qlinear_conv_case({1, 3, 6, 6}, {4, 3, 3, 3}, conv_attrs(), QuantCase{});
  ASSERT_TRUE(c);
  auto actual = run_op_vulkan(c->op, c->inputs, GpuPrecision::kF32, kParamsConstant & ~(1u << 1));
  ASSERT_TRUE(actual.ok()) << actual.status().to_string();
  ASSERT_FALSE(actual->placement.empty());
  EXPECT_EQ(actual->placement[0].device, "cpu");
  EXPECT_NE(actual->placement[0].reason.find("computed at run time"), std::string::npos) << actual->placement[0].reason;
}

// A CPU-type device (lavapipe, not forced) leaves QLinearConv to the CPU
// backend, saying why.
TEST(QLinearConvVk, CpuTypeDeviceKeepsItOnCpu) {
  MOTE_REQUIRE_VULKAN();
  if (device_runs_int8_shaders()) GTEST_SKIP() << "this device runs QLinearConv's shader";
  std::optional<QLinearConvCase> c = qlinear_conv_case({1, 3, 6, 6}, {4, 3, 3, 3}, conv_attrs(), QuantCase{});
  ASSERT_TRUE(c);
  auto actual = run_op_vulkan(c->op, c->inputs, GpuPrecision::kF32, kParamsConstant);
  ASSERT_TRUE(actual.ok()) << actual.status().to_string();
  ASSERT_FALSE(actual->placement.empty());
  EXPECT_EQ(actual->placement[0].device, "cpu");
  EXPECT_NE(actual->placement[0].reason.find("CPU-type Vulkan device"), std::string::npos)
      << actual->placement[0].reason;
}

}  // namespace
}  // namespace mote::test
