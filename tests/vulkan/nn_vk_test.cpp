// Conv, ConvTranspose, Gemm and MatMul on Vulkan against the reference
// kernels: the implicit-GEMM and depthwise conv paths (the stencil's row and
// pixel variants), tile edges (odd sizes
// and sizes past one 64 x 64 tile), attribute variants, fused activations,
// and weights both as model constants and as graph inputs.
#include "runtime/ops/conv_geometry.hpp"
#include "tests/ops/fused_activation_util.hpp"
#include "tests/support/op_attrs.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

using fb::OpType;

// Sums of up to a few thousand products in a different order than the
// double-precision reference; f16 storage rounds the output.
const Tolerance kTol{1e-4, 1e-4, 1e-2, 1e-2};
// Weights and bias as model constants, or everything as graph inputs.
constexpr uint32_t kWeightsConstant = 0b110;
constexpr uint32_t kAllInputs = 0;

struct ConvCase {
  std::string name;
  Shape x, w;
  fb::ConvAttrsT attrs;
  bool bias = true;
};

void check_conv(OpType type, const ConvCase& c, uint32_t constant_mask, const fb::FusedActivationT* act = nullptr,
                uint32_t seed = 1) {
  SCOPED_TRACE(c.name + " X " + shape_to_string(c.x) + " W " + shape_to_string(c.w) +
               (constant_mask ? " constant weights" : " weights as inputs") + (act ? " fused " + fused_name(*act) : ""));
  fb::OpT op = make_op(type, c.attrs);
  if (act) op = with_fused(std::move(op), *act);
  int64_t out_channels = type == OpType::Conv ? c.w[0] : c.w[1] * c.attrs.group;
  Inputs inputs = {random_tensor(DType::F32, c.x, seed), random_tensor(DType::F32, c.w, seed + 1)};
  if (c.bias) inputs.push_back(random_tensor(DType::F32, {out_channels}, seed + 2));
  expect_vulkan_matches_reference(op, inputs, kTol, constant_mask);
}

std::vector<ConvCase> conv_cases() {
  using fb::AutoPad;
  return {
      {"mobilenet depthwise 3x3 s2", {1, 32, 15, 15}, {32, 1, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1}, {}, 32)},
      {"depthwise 3x3 s1", {2, 13, 9, 7}, {13, 1, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 13), false},
      {"depthwise multiplier 2", {1, 3, 8, 11}, {6, 1, 3, 3}, conv_attrs({1, 1}, {0, 1, 2, 1}, {}, 3)},
      // The stencil's row path (4 outputs per invocation) at stride 2 over an
      // odd width, with a row dilation; and its pixel path (a dilated or
      // stride-3 row).
      {"depthwise 5x5 s2 wide", {1, 8, 9, 37}, {8, 1, 5, 5}, conv_attrs({2, 2}, {2, 2, 2, 2}, {}, 8)},
      // Rows of a multiple of 4 floats: the band in vec4s, and outputs
      // stored as vec4s where output rows are such too (3x3 stride 1 and 2;
      // 5x5 stride 2, whose 10-wide output rows are stored one by one).
      {"depthwise 3x3 s1 vec4 rows", {2, 6, 12, 16}, {6, 1, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 6)},
      {"depthwise 3x3 s2 vec4 rows", {1, 5, 16, 24}, {5, 1, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1}, {}, 5)},
      {"depthwise 5x5 s2 vec4 rows", {1, 4, 12, 20}, {4, 1, 5, 5}, conv_attrs({2, 2}, {2, 2, 2, 2}, {}, 4)},
      {"depthwise rows dilated", {1, 4, 11, 10}, {4, 1, 3, 3}, conv_attrs({1, 1}, {2, 1, 2, 1}, {2, 1}, 4)},
      {"depthwise dilated", {1, 4, 11, 10}, {4, 1, 3, 3}, conv_attrs({1, 1}, {2, 2, 2, 2}, {2, 2}, 4)},
      {"depthwise stride 3", {1, 5, 10, 13}, {5, 1, 3, 3}, conv_attrs({3, 3}, {1, 1, 1, 1}, {}, 5)},
      {"single channel image", {2, 1, 13, 13}, {5, 1, 5, 5}, conv_attrs({1, 1}, {2, 2, 2, 2})},
      {"pointwise 1x1", {1, 13, 7, 9}, {24, 13, 1, 1}, conv_attrs()},
      {"pointwise 1x1 batch 2", {2, 32, 14, 14}, {96, 32, 1, 1}, conv_attrs(), false},
      {"pointwise 1x1 stride 2", {1, 16, 9, 9}, {32, 16, 1, 1}, conv_attrs({2, 2})},
      // 320 pixels per image (a multiple of 4) over two images: the register
      // core's column quads, with partial tiles along both sides.
      {"pointwise 1x1 column quads", {2, 24, 16, 20}, {37, 24, 1, 1}, conv_attrs()},
      // 49 pixels, 136 output channels, one image: with constant weights
      // the product turns around (pixels along the rows, channels in quads).
      {"pointwise 1x1 turned around", {1, 40, 7, 7}, {136, 40, 1, 1}, conv_attrs()},
      {"7x7 s2 p3 first layer", {1, 3, 29, 31}, {8, 3, 7, 7}, conv_attrs({2, 2}, {3, 3, 3, 3})},
      {"3x3 s2 first layer", {2, 3, 17, 17}, {13, 3, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1})},
      {"grouped", {1, 4, 9, 10}, {6, 2, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1}, {}, 2)},
      {"grouped 3", {2, 6, 7, 5}, {3, 2, 3, 3}, conv_attrs({3, 1}, {1, 1, 1, 1}, {1, 1}, 3)},
      {"dilation 2", {1, 2, 11, 13}, {3, 2, 3, 3}, conv_attrs({1, 1}, {2, 2, 2, 2}, {2, 2})},
      {"asymmetric pads", {1, 3, 13, 13}, {5, 3, 3, 3}, conv_attrs({2, 2}, {0, 1, 2, 1})},
      {"rectangular", {1, 3, 12, 9}, {2, 3, 2, 3}, conv_attrs({1, 2}, {1, 0, 0, 2}, {2, 1})},
      {"same upper", {1, 3, 10, 11}, {4, 3, 4, 4}, conv_attrs({2, 2}, {}, {}, 1, AutoPad::SameUpper)},
      {"1x1 channels", {1, 1, 3, 3}, {1, 1, 1, 1}, conv_attrs()},
      {"1-D", {2, 5, 31}, {7, 5, 3}, conv_attrs({2}, {1, 1})},
      // Several tiles along rows and columns, and a deep K (64 * 9 = 576).
      {"multi-tile deep", {1, 64, 12, 12}, {70, 64, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1})},
      {"resnet 3x3 small image", {1, 128, 7, 7}, {130, 128, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}), false},
  };
}

TEST(ConvVk, MatchesReference) {
  MOTE_REQUIRE_VULKAN();
  uint32_t seed = 1;
  for (const ConvCase& c : conv_cases()) {
    ASSERT_TRUE(resolve_conv(c.attrs, c.x, c.w).ok()) << c.name;
    check_conv(OpType::Conv, c, kWeightsConstant, nullptr, seed);
    check_conv(OpType::Conv, c, kAllInputs, nullptr, seed + 10);
    seed += 100;
  }
}

TEST(ConvVk, FusedActivations) {
  MOTE_REQUIRE_VULKAN();
  const ConvCase gemm_path{"pointwise", {1, 5, 6, 7}, {9, 5, 1, 1}, conv_attrs()};
  const ConvCase general{"3x3", {1, 4, 6, 7}, {9, 4, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1})};
  const ConvCase depthwise{"depthwise", {1, 6, 7, 5}, {6, 1, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1}, {}, 6)};
  for (const fb::FusedActivationT& act : all_fused_activations()) {
    for (const ConvCase* c : {&gemm_path, &general, &depthwise}) check_conv(OpType::Conv, *c, kWeightsConstant, &act);
  }
}

// The residual (input 3) is added in the same shader before the activation,
// on the implicit GEMM (pointwise and general) and the depthwise stencil,
// with weights constant or not.
TEST(ConvVk, Residual) {
  MOTE_REQUIRE_VULKAN();
  const ConvCase cases[] = {
      {"pointwise", {2, 5, 6, 7}, {9, 5, 1, 1}, conv_attrs()},
      {"pointwise column quads", {1, 6, 16, 17}, {9, 6, 1, 1}, conv_attrs()},
      {"pointwise turned around", {1, 8, 5, 7}, {132, 8, 1, 1}, conv_attrs()},
      {"3x3 s2", {1, 4, 9, 7}, {9, 4, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1}), false},
      {"depthwise", {1, 6, 7, 5}, {6, 1, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 6)},
      {"depthwise vec4 rows", {1, 6, 8, 12}, {6, 1, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 6)},
      // Deep enough (64 * 9) for split-K where the device profile asks for
      // it, over one image and over two (the reduce pass's image stride).
      {"deep 3x3", {1, 64, 5, 5}, {12, 64, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1})},
      {"deep 3x3 batch 2", {2, 64, 5, 5}, {12, 64, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1})},
  };
  std::vector<fb::FusedActivationT> acts = all_fused_activations();
  acts.emplace_back();  // none
  uint32_t seed = 1;
  for (const ConvCase& c : cases) {
    auto g = resolve_conv(c.attrs, c.x, c.w);
    ASSERT_TRUE(g.ok()) << c.name;
    for (const fb::FusedActivationT& act : acts) {
      SCOPED_TRACE(c.name + " fused " + fused_name(act));
      fb::OpT op = with_fused(make_op(OpType::Conv, c.attrs), act);
      Inputs inputs = {random_tensor(DType::F32, c.x, seed), random_tensor(DType::F32, c.w, seed + 1)};
      inputs.push_back(c.bias ? std::optional<Tensor>(random_tensor(DType::F32, {c.w[0]}, seed + 2)) : std::nullopt);
      inputs.push_back(random_tensor(DType::F32, g->output_shape(), seed + 3));
      expect_vulkan_matches_reference(op, inputs, kTol, kWeightsConstant);
      expect_vulkan_matches_reference(op, inputs, kTol, kAllInputs);
      seed += 10;
    }
  }
}

TEST(ConvVk, ThreeDimensionalFallsBackToCpu) {
  MOTE_REQUIRE_VULKAN();
  fb::OpT op = make_op(OpType::Conv, conv_attrs());
  Inputs inputs = {random_tensor(DType::F32, {1, 2, 3, 4, 5}, 1), random_tensor(DType::F32, {3, 2, 1, 2, 2}, 2)};
  auto run = run_op_vulkan(op, inputs, GpuPrecision::kF32);
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  ASSERT_FALSE(run->placement.empty());
  EXPECT_NE(run->placement[0].device, "vulkan");
  EXPECT_NE(run->placement[0].reason.find("3-D"), std::string::npos) << run->placement[0].reason;
}

fb::ConvAttrsT transpose_attrs(std::vector<int64_t> strides, std::vector<int64_t> pads,
                               std::vector<int64_t> output_padding = {}, std::vector<int64_t> dilations = {},
                               int64_t group = 1, std::vector<int64_t> output_shape = {}) {
  fb::ConvAttrsT a = conv_attrs(std::move(strides), std::move(pads), std::move(dilations), group);
  a.output_padding = std::move(output_padding);
  a.output_shape = std::move(output_shape);
  return a;
}

TEST(ConvTransposeVk, MatchesReference) {
  MOTE_REQUIRE_VULKAN();
  const std::vector<ConvCase> cases = {
      {"3x3 s2 upsampling", {1, 8, 5, 6}, {8, 4, 3, 3}, transpose_attrs({2, 2}, {1, 1, 1, 1}, {1, 1})},
      {"2x2 s2", {2, 3, 4, 4}, {3, 5, 2, 2}, transpose_attrs({2, 2}, {}), false},
      {"grouped dilated", {1, 4, 5, 5}, {4, 3, 3, 3}, transpose_attrs({1, 2}, {0, 1, 2, 0}, {}, {2, 1}, 2)},
      {"odd channels stride 3", {1, 13, 3, 4}, {13, 1, 4, 3}, transpose_attrs({3, 3}, {1, 0, 1, 0}, {2, 0})},
      {"output_shape", {1, 2, 3, 3}, {2, 3, 3, 3}, transpose_attrs({2, 2}, {}, {}, {}, 1, {8, 9})},
      {"1-D", {1, 3, 7}, {3, 2, 5}, transpose_attrs({2}, {2, 1})},
  };
  uint32_t seed = 5;
  for (const ConvCase& c : cases) {
    ASSERT_TRUE(resolve_conv_transpose(c.attrs, c.x, c.w).ok()) << c.name;
    check_conv(OpType::ConvTranspose, c, kWeightsConstant, nullptr, seed);
    check_conv(OpType::ConvTranspose, c, kAllInputs, nullptr, seed + 10);
    seed += 100;
  }
  fb::FusedActivationT relu6 = fused_activation(fb::ActivationKind::Clip, 0.0f, 0.0f, 0.6f);
  check_conv(OpType::ConvTranspose, cases[0], kWeightsConstant, &relu6);
}

void check_gemm(int64_t m, int64_t n, int64_t k, const fb::GemmAttrsT& a, std::optional<Shape> c,
                uint32_t constant_mask, const fb::FusedActivationT* act = nullptr, uint32_t seed = 1) {
  SCOPED_TRACE("M " + std::to_string(m) + " N " + std::to_string(n) + " K " + std::to_string(k) +
               (a.trans_a ? " trans_a" : "") + (a.trans_b ? " trans_b" : "") + " C " +
               (c ? shape_to_string(*c) : std::string("none")) + (act ? " fused " + fused_name(*act) : ""));
  fb::OpT op = make_op(OpType::Gemm, a);
  if (act) op = with_fused(std::move(op), *act);
  Shape sa = a.trans_a ? Shape{k, m} : Shape{m, k};
  Shape sb = a.trans_b ? Shape{n, k} : Shape{k, n};
  Inputs inputs = {random_tensor(DType::F32, sa, seed), random_tensor(DType::F32, sb, seed + 1)};
  if (c) inputs.push_back(random_tensor(DType::F32, *c, seed + 2));
  expect_vulkan_matches_reference(op, inputs, kTol, constant_mask);
}

TEST(GemmVk, OddSizesAndTransposes) {
  MOTE_REQUIRE_VULKAN();
  uint32_t seed = 1;
  for (int64_t m : {1, 13, 127}) {
    for (int64_t n : {1, 3, 127}) {
      for (int64_t k : {1, 13, 130}) {
        bool ta = (m + n + k) % 2 == 0, tb = (m + k) % 3 == 0;
        check_gemm(m, n, k, gemm_attrs(1.0f, 1.0f, ta, tb), Shape{n}, kWeightsConstant, nullptr, seed++);
      }
    }
  }
  // Column quads with Gemm's bias along the columns (B row-major, 260
  // columns), stored one by one.
  check_gemm(70, 260, 37, gemm_attrs(1.0f, 0.5f), Shape{260}, kWeightsConstant, nullptr, seed++);
  // Several tiles in both directions, every transpose combination.
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      check_gemm(70, 130, 37, gemm_attrs(1.0f, 1.0f, ta, tb), std::nullopt, kAllInputs, nullptr, seed++);
    }
  }
}

TEST(GemmVk, AlphaBetaAndBiasBroadcast) {
  MOTE_REQUIRE_VULKAN();
  const int64_t m = 5, n = 7, k = 11;
  const std::vector<std::optional<Shape>> biases = {std::nullopt, Shape{},     Shape{1},    Shape{n},
                                                     Shape{1, n},  Shape{m, 1}, Shape{m, n}, Shape{1, 1}};
  uint32_t seed = 50;
  for (const auto& c : biases) {
    check_gemm(m, n, k, gemm_attrs(0.5f, -2.0f), c, kWeightsConstant, nullptr, seed++);
    check_gemm(m, n, k, gemm_attrs(1.5f, 0.25f, true, true), c, kAllInputs, nullptr, seed++);
  }
}

TEST(GemmVk, FusedActivations) {
  MOTE_REQUIRE_VULKAN();
  for (const fb::FusedActivationT& act : all_fused_activations()) {
    check_gemm(1, 100, 64, gemm_attrs(1.0f, 1.0f, false, true), Shape{100}, kWeightsConstant, &act);
    check_gemm(9, 12, 20, gemm_attrs(), Shape{12}, kWeightsConstant, &act);
    // Deep enough for split-K where the device profile asks for it.
    check_gemm(6, 10, 700, gemm_attrs(0.5f, -2.0f), Shape{6, 1}, kWeightsConstant, &act);
  }
}

void check_matmul(const Shape& a, const Shape& b, const fb::FusedActivationT* act = nullptr, uint32_t seed = 1) {
  SCOPED_TRACE("A " + shape_to_string(a) + " B " + shape_to_string(b) + (act ? " fused " + fused_name(*act) : ""));
  fb::OpT op = make_op(OpType::MatMul);
  if (act) op = with_fused(std::move(op), *act);
  Inputs inputs = {random_tensor(DType::F32, a, seed), random_tensor(DType::F32, b, seed + 1)};
  expect_vulkan_matches_reference(op, inputs, kTol, kAllInputs);
  expect_vulkan_matches_reference(op, inputs, kTol, 0b10);
}

TEST(MatMulVk, VectorsAndBroadcastBatches) {
  MOTE_REQUIRE_VULKAN();
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{13}, {13, 7}},   // 1-D x 2-D
      {{5, 13}, {13}},   // 2-D x 1-D
      {{127}, {127}},    // dot product
      {{3}, {2, 3, 4}},  // 1-D x batched
      {{1, 1}, {1, 1}},
      {{3, 13}, {13, 127}},
      {{70, 33}, {33, 130}},               // several tiles
      {{70, 33}, {33, 260}},               // columns in quads (a multiple of 4)
      {{2, 5, 7}, {2, 7, 264}},            // quads over batches
      {{2, 3, 5, 7}, {7, 6}},              // stacked A, shared B: folded into rows
      {{5, 7}, {4, 7, 6}},                 // shared A, batched B
      {{2, 1, 3, 5, 7}, {4, 1, 7, 6}},     // broadcast both ways, three batch dims
      {{2, 3, 1, 5, 7}, {2, 3, 4, 7, 6}},  // contiguous dims collapse
      {{4, 1, 9}, {1, 9, 1}},
      {{9, 600}, {600, 11}},  // deep: split-K where the profile asks for it
      {{70, 600}, {600, 5}},  // deep with the operands swapped (N < 64 and N < M)
  };
  uint32_t seed = 3;
  for (const auto& [a, b] : cases) check_matmul(a, b, nullptr, seed += 10);
  fb::FusedActivationT silu = fused_activation(fb::ActivationKind::SiLU);
  check_matmul({2, 5, 7}, {2, 7, 3}, &silu, 99);
}

TEST(MatMulVk, TooManyBatchDimsFallBackToCpu) {
  MOTE_REQUIRE_VULKAN();
  // Alternating broadcast leaves four batch dims that cannot merge.
  fb::OpT op = make_op(OpType::MatMul);
  Inputs inputs = {random_tensor(DType::F32, {2, 1, 2, 1, 3, 4}, 1), random_tensor(DType::F32, {2, 1, 2, 4, 3}, 2)};
  auto run = run_op_vulkan(op, inputs, GpuPrecision::kF32, kAllInputs);
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  ASSERT_FALSE(run->placement.empty());
  EXPECT_NE(run->placement[0].device, "vulkan");
}

}  // namespace
}  // namespace mote::test
