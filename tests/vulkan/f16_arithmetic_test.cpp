// f16 arithmetic on the GPU (SessionOptions::gpu_f16_arithmetic): Conv,
// Gemm and MatMul through the f16-arithmetic variants of the GEMM cores
// (shaders/gemm_tile.glsl, gemm_shared.glsl) against the reference kernels;
// the two rules of those variants, products of 8 consecutive depth values
// summed in f16 and those sums summed in f32, each shown by a product whose
// result only that rule gives; and choose_gpu_precision dropping f16
// products that cost more than the tolerance. CTest runs these again on the
// shared-memory core (whole and split-K) and with shaderFloat16 switched off
// (MOTE_VK_DISABLE=f16math), where the products stay f32 and say why.
#include <cmath>

#include "mote/gpu.hpp"
#include "tests/support/model_util.hpp"
#include "tests/support/op_attrs.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

using fb::OpType;

// max |f16 arithmetic - reference| / max |reference| accepted; measured
// on lavapipe: 4.8e-4 to 9.1e-4 over the cases below, on either GEMM core.
constexpr double kMaxRelativeError = 4e-3;

SessionOptions f16_arithmetic() {
  SessionOptions o;
  o.gpu_f16_arithmetic = true;
  return o;
}

Tensor values(Shape shape, const std::vector<float>& v) {
  Tensor t = Tensor::zeros(DType::F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = v[static_cast<size_t>(i) % v.size()];
  return t;
}

// Runs `op` with f16 storage and f16 arithmetic and checks it against the
// reference kernel on the inputs rounded to f16, and that its products were
// f16 exactly when the device has shaderFloat16.
void expect_matches_reference(const std::string& what, const fb::OpT& op, const Inputs& inputs,
                              uint32_t constant_mask = 0b110) {
  SCOPED_TRACE(what);
  Inputs seen = inputs;
  for (auto& in : seen) {
    if (in) in = round_to_f16(*in);
  }
  auto expected = run_op(op, seen, Impl::kReference);
  ASSERT_TRUE(expected.ok()) << expected.status().to_string();
  auto actual = run_op_vulkan(op, inputs, GpuPrecision::kF16Storage, constant_mask, f16_arithmetic());
  ASSERT_TRUE(actual.ok()) << actual.status().to_string();
  ASSERT_EQ(actual->placement[0].device, "vulkan") << actual->placement[0].reason;
  EXPECT_EQ(actual->placement[0].f16_arithmetic, device_has_shader_float16()) << actual->stats.gpu_precision;
  // Against the output's largest magnitude, as choose_gpu_precision measures:
  // each run's f16 sum is off by up to half an f16 ulp of its size, and
  // deep products add up many runs (72 at a depth of 576), so an element
  // near zero can be off by more than f16 storage's per-element 1e-2.
  for (size_t i = 0; i < expected->size(); ++i) {
    const Tensor& got = actual->outputs[i];
    const Tensor& want = (*expected)[i];
    ASSERT_EQ(got.shape(), want.shape());
    double worst = 0, largest = 0;
    for (int64_t j = 0; j < want.numel(); ++j) {
      worst = std::max(worst, std::fabs(double(got.data<float>()[j]) - want.data<float>()[j]));
      largest = std::max(largest, std::fabs(double(want.data<float>()[j])));
    }
    EXPECT_LE(worst, kMaxRelativeError * largest) << "max |diff| " << worst << ", max |expected| " << largest;
  }
}

TEST(F16Arithmetic, MatchesTheReference) {
  MOTE_REQUIRE_VULKAN();
  if (!device_has_fp16_storage()) GTEST_SKIP() << "no f16 storage";
  struct ConvCase {
    std::string name;
    Shape x, w;
    fb::ConvAttrsT attrs;
  };
  const ConvCase convs[] = {
      {"pointwise", {2, 32, 14, 14}, {96, 32, 1, 1}, conv_attrs()},
      {"3x3 s1 (no Winograd in f16)", {1, 13, 9, 11}, {24, 13, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1})},
      {"3x3 s2", {1, 16, 15, 15}, {20, 16, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1})},
      {"grouped", {1, 6, 7, 5}, {9, 2, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 3)},
      {"deep, several tiles", {1, 64, 12, 12}, {70, 64, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1})},
  };
  uint32_t seed = 1;
  for (const ConvCase& c : convs) {
    Inputs in = {random_tensor(DType::F32, c.x, seed), random_tensor(DType::F32, c.w, seed + 1),
                 random_tensor(DType::F32, {c.w[0]}, seed + 2)};
    expect_matches_reference("Conv " + c.name, make_op(OpType::Conv, c.attrs), in);
    seed += 10;
  }
  const std::pair<Shape, Shape> products[] = {{{70, 33}, {33, 130}}, {{2, 3, 5, 7}, {7, 6}}, {{9, 600}, {600, 11}}};
  for (const auto& [a, b] : products) {
    expect_matches_reference("MatMul " + shape_to_string(a) + " x " + shape_to_string(b), make_op(OpType::MatMul),
                             {random_tensor(DType::F32, a, seed), random_tensor(DType::F32, b, seed + 1)}, 0);
    seed += 10;
  }
  expect_matches_reference("Gemm, B transposed, bias", make_op(OpType::Gemm, gemm_attrs(0.5f, 2.0f, false, true)),
                           {random_tensor(DType::F32, {19, 45}, seed), random_tensor(DType::F32, {37, 45}, seed + 1),
                            random_tensor(DType::F32, {37}, seed + 2)});
}

// Rule one: the products of a run of 8 depth values are summed in f16. A
// dot product of (32, 0.5 x 7) with itself is 1024 + 7 x 0.25 = 1025.75;
// in f16, 1024 + 0.25 rounds back to 1024 (f16's spacing there is 1), so
// the run sums to 1024, where f32 products give 1025.75, stored as f16:
// 1026.
TEST(F16Arithmetic, ProductsOfARunAreSummedInF16) {
  MOTE_REQUIRE_VULKAN();
  if (!device_has_fp16_storage()) GTEST_SKIP() << "no f16 storage";
  const Tensor a = values({1, 8}, {32, .5f, .5f, .5f, .5f, .5f, .5f, .5f});
  const Tensor b = values({8, 1}, {32, .5f, .5f, .5f, .5f, .5f, .5f, .5f});
  auto storage = run_op_vulkan(make_op(OpType::MatMul), {a, b}, GpuPrecision::kF16Storage, 0);
  ASSERT_TRUE(storage.ok()) << storage.status().to_string();
  EXPECT_EQ(storage->outputs[0].data<float>()[0], 1026.0f);
  EXPECT_FALSE(storage->placement[0].f16_arithmetic);
  auto math = run_op_vulkan(make_op(OpType::MatMul), {a, b}, GpuPrecision::kF16Storage, 0, f16_arithmetic());
  ASSERT_TRUE(math.ok()) << math.status().to_string();
  if (device_has_shader_float16()) {
    EXPECT_EQ(math->outputs[0].data<float>()[0], 1024.0f);
    EXPECT_TRUE(math->placement[0].f16_arithmetic);
    EXPECT_NE(math->stats.gpu_precision.find("(1 with f16 products)"), std::string::npos)
        << math->stats.gpu_precision;
  } else {
    EXPECT_EQ(math->outputs[0].data<float>()[0], 1026.0f);
    EXPECT_FALSE(math->placement[0].f16_arithmetic);
    EXPECT_NE(math->stats.gpu_precision.find("products in f32: this device has no shaderFloat16"), std::string::npos)
        << math->stats.gpu_precision;
  }
}

// Rule two: the runs' sums are added in f32. Summing 4096 products of ones
// in f16 would stop at 2048 (2048 + 1 rounds to 2048); in runs of 8 added
// in f32 it is exact, and 4096 is an f16 value, so it is stored exactly.
// Where the depth is split (split-K, parts of 256 or less, summed in f32),
// each part's sum is exact in f16 too, so the test shows the rule only
// without split-K: lavapipe's register core and CTest's
// vulkan_gemm_shared_core_large.
TEST(F16Arithmetic, SumsOverTheDepthAreF32) {
  MOTE_REQUIRE_VULKAN();
  if (!device_has_fp16_storage()) GTEST_SKIP() << "no f16 storage";
  for (const Shape& b : {Shape{4096, 3}, Shape{4096, 70}}) {
    auto run = run_op_vulkan(make_op(OpType::MatMul), {values({5, 4096}, {1}), values(b, {1})},
                             GpuPrecision::kF16Storage, 0, f16_arithmetic());
    ASSERT_TRUE(run.ok()) << run.status().to_string();
    EXPECT_EQ(run->placement[0].f16_arithmetic, device_has_shader_float16());
    const Tensor& y = run->outputs[0];
    for (int64_t i = 0; i < y.numel(); ++i) ASSERT_EQ(y.data<float>()[i], 4096.0f) << "element " << i;
  }
}

// choose_gpu_precision with f16 products asked for: the dot product above
// is 1.7e-3 off with them and 2.4e-4 with f16 storage alone. Under a
// tolerance of 1e-3 the products are dropped, under 1e-2 kept. (The op
// grows its input's error 1.7e-3 / 2^-11 = 3.5x, under the 4x at which
// the rounds would keep it f32 instead: gpu_precision::kMinGrowth.)
TEST(F16Arithmetic, ChooseGpuPrecisionDropsProductsOverTheTolerance) {
  MOTE_REQUIRE_VULKAN();
  if (!device_has_fp16_storage()) GTEST_SKIP() << "no f16 storage";
  GraphBuilder g;
  int x = g.add_input("x", DType::F32, {1, 8});
  int w = g.add_constant("w", values({8, 1}, {32, .5f, .5f, .5f, .5f, .5f, .5f, .5f}));
  g.mark_output(g.add_op(OpType::MatMul, {x, w}, 1, "dot")[0], "y");
  auto model = load_built(g, "dot.mote");
  const std::vector<Tensor> calibration = {values({1, 8}, {32, .5f, .5f, .5f, .5f, .5f, .5f, .5f})};
  SessionOptions options = f16_arithmetic();
  options.min_gpu_island_elements = 0;
  GpuPrecisionOptions choose;
  choose.runs = 0;

  choose.tolerance = 1e-3;
  auto tight = choose_gpu_precision(model, calibration, options, choose);
  ASSERT_TRUE(tight.ok()) << tight.status().to_string();
  EXPECT_TRUE(tight->met);
  EXPECT_FALSE(tight->f16_arithmetic);
  EXPECT_TRUE(tight->f32_ops.empty());
  EXPECT_NEAR(tight->error_chosen, 0.25 / 1025.75, 1e-6);
  if (device_has_shader_float16()) EXPECT_NEAR(tight->error_f16_arithmetic, 1.75 / 1025.75, 1e-6);

  choose.tolerance = 1e-2;
  auto loose = choose_gpu_precision(model, calibration, options, choose);
  ASSERT_TRUE(loose.ok()) << loose.status().to_string();
  EXPECT_TRUE(loose->met);
  EXPECT_EQ(loose->f16_arithmetic, device_has_shader_float16());
  ASSERT_EQ(loose->ops.size(), 1u);
  EXPECT_EQ(loose->ops[0].f16_arithmetic, device_has_shader_float16());
}

}  // namespace
}  // namespace mote::test
