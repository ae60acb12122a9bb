// Winograd convolution on Vulkan (runtime/vulkan/kernels/conv_winograd.cpp)
// against the reference kernel: both variants (F(4x4, 3x3) with 36 point
// products, F(2x2, 3x3) with 16), partial tiles at the right and bottom
// edges, no / symmetric / asymmetric padding, two images, bias, residual and
// fused activations. Each case also checks from the placement's GEMM shape
// that the Winograd path really ran (batch 36 or 16 point products).
#include "runtime/ops/conv_geometry.hpp"
#include "tests/ops/fused_activation_util.hpp"
#include "tests/support/op_attrs.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

using fb::OpType;

// The transforms scale values by up to 5 (input) and 8 x 8 (output) before
// the f32 sums, a few bits more rounding than a direct sum; f16 storage
// keeps the implicit GEMM (checked by the f16 half of the comparison).
const Tolerance kTol{2e-4, 2e-4, 1e-2, 1e-2};
constexpr uint32_t kWeightsConstant = 0b110;

struct WinogradCase {
  std::string name;
  Shape x, w;
  std::vector<int64_t> pads;
  int points;  // 36: F(4x4, 3x3); 16: F(2x2, 3x3)
  bool bias = true;
  bool residual = false;
};

std::string batch_of(const std::string& gemm_shape) { return gemm_shape.substr(gemm_shape.rfind('x') + 1); }

TEST(ConvWinogradVk, MatchesReference) {
  MOTE_REQUIRE_VULKAN();
  const std::vector<WinogradCase> cases = {
      // 17x19 outputs: 5 x 5 tiles of 4, the last row and column partial.
      {"F4 partial tiles", {1, 16, 17, 19}, {24, 16, 3, 3}, {1, 1, 1, 1}, 36},
      {"F4 two images, residual", {2, 32, 16, 16}, {16, 32, 3, 3}, {1, 1, 1, 1}, 36, true, true},
      {"F4 no padding, no bias", {1, 16, 22, 22}, {20, 16, 3, 3}, {0, 0, 0, 0}, 36, false},
      {"F4 asymmetric padding", {1, 24, 18, 17}, {17, 24, 3, 3}, {0, 1, 2, 0}, 36, true, true},
      // 6x5 outputs: 2 x 2 tiles of 4 are too few, 3 x 3 tiles of 2.
      {"F2 small image", {1, 20, 6, 5}, {18, 20, 3, 3}, {1, 1, 1, 1}, 16},
      {"F2 7x7 two images", {2, 64, 7, 7}, {32, 64, 3, 3}, {1, 1, 1, 1}, 16, true, true},
      // 18 tiles against 64 output channels: the point products run swapped
      // (tiles along the rows), over two images.
      {"F2 swapped product", {2, 16, 6, 6}, {64, 16, 3, 3}, {1, 1, 1, 1}, 16, true, true},
      // Swapped with 128 output channels: the register core reads the
      // transposed weights as vec4 column quads.
      {"F2 swapped product, column quads", {1, 16, 8, 8}, {128, 16, 3, 3}, {1, 1, 1, 1}, 16, true, true},
  };
  std::vector<fb::FusedActivationT> acts = {fb::FusedActivationT{}};
  acts.push_back(fused_activation(fb::ActivationKind::Relu));
  acts.push_back(fused_activation(fb::ActivationKind::Clip, 0.0f, 0.0f, 0.5f));
  uint32_t seed = 11;
  for (size_t i = 0; i < cases.size(); ++i) {
    const WinogradCase& c = cases[i];
    fb::ConvAttrsT attrs = conv_attrs({1, 1}, c.pads);
    auto g = resolve_conv(attrs, c.x, c.w);
    ASSERT_TRUE(g.ok()) << c.name;
    {
      // One activation per case, in turn: each pipeline variant compiles once.
      const fb::FusedActivationT& act = acts[i % acts.size()];
      SCOPED_TRACE(c.name + " fused " + fused_name(act));
      fb::OpT op = with_fused(make_op(OpType::Conv, attrs), act);
      Inputs inputs = {random_tensor(DType::F32, c.x, seed), random_tensor(DType::F32, c.w, seed + 1)};
      inputs.push_back(c.bias ? std::optional<Tensor>(random_tensor(DType::F32, {c.w[0]}, seed + 2)) : std::nullopt);
      if (c.residual) inputs.push_back(random_tensor(DType::F32, g->output_shape(), seed + 3));
      expect_vulkan_matches_reference(op, inputs, kTol, kWeightsConstant);

      auto run = run_op_vulkan(op, inputs, GpuPrecision::kF32, kWeightsConstant);
      ASSERT_TRUE(run.ok()) << run.status().to_string();
      ASSERT_EQ(run->placement.at(0).gemms.size(), 1u);
      EXPECT_EQ(batch_of(run->placement[0].gemms[0].shape), std::to_string(c.points))
          << "not the expected Winograd variant: GEMM " << run->placement[0].gemms[0].shape;
      seed += 10;
    }
  }
}

// Weights that are graph inputs cannot be transformed at prepare: the
// implicit GEMM runs them (one product, batch 1), with the same results.
TEST(ConvWinogradVk, WeightsAsInputsTakeTheImplicitGemm) {
  MOTE_REQUIRE_VULKAN();
  fb::OpT op = make_op(OpType::Conv, conv_attrs({1, 1}, {1, 1, 1, 1}));
  Inputs inputs = {random_tensor(DType::F32, {1, 16, 9, 9}, 5), random_tensor(DType::F32, {16, 16, 3, 3}, 6)};
  auto run = run_op_vulkan(op, inputs, GpuPrecision::kF32, /*constant_mask=*/0);
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  ASSERT_EQ(run->placement.at(0).gemms.size(), 1u);
  EXPECT_EQ(batch_of(run->placement[0].gemms[0].shape), "1");
  auto expected = run_op(op, inputs, Impl::kReference);
  ASSERT_TRUE(expected.ok());
  expect_tensors_near(run->outputs[0], (*expected)[0], 1e-4, 1e-4, "Conv");
}

}  // namespace
}  // namespace mote::test
