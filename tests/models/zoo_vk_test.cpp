// Whole networks on the Vulkan backend against the CPU backend: the model
// zoo (small CNN, MobileNetV2, ResNet-18 shapes) with every op expected on the
// GPU, in f32 and f16 storage, and MobileNetV2 with f16 products. Skips without a Vulkan device unless
// MOTE_REQUIRE_VULKAN is set (as platforms/linux/test.sh does).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "model_zoo.hpp"
#include "mote/mote.hpp"
#include "tests/models/zoo_test_util.hpp"
#include "tests/support/op_test_util.hpp"

namespace mote {
namespace {

// max |a - b| / max |b| over the tensor.
double relative_error(const Tensor& a, const Tensor& b) {
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < b.numel(); ++i) {
    diff = std::max(diff, std::fabs(double(a.data<float>()[i]) - b.data<float>()[i]));
    scale = std::max(scale, std::fabs(double(b.data<float>()[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

void expect_vulkan_agrees(const std::shared_ptr<const Model>& model, GpuPrecision precision, double max_error,
                          bool f16_arithmetic = false) {
  auto gpu_info = describe_gpu();
  if (!gpu_info.ok()) {
    if (std::getenv("MOTE_REQUIRE_VULKAN")) FAIL() << gpu_info.status().message();
    GTEST_SKIP() << gpu_info.status().message();
  }
  Tensor input = test::random_tensor(DType::F32, model->inputs()[0].shape, 5, 0.0, 1.0);
  SessionOptions options{.backend = Backend::kVulkan, .gpu_precision = precision};
  options.gpu_f16_arithmetic = f16_arithmetic;
  auto gpu = Session::create(model, options);
  auto cpu = Session::create(model, {.backend = Backend::kCpu});
  ASSERT_TRUE(gpu.ok() && cpu.ok());
  auto a = (*gpu)->run({input});
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  auto b = (*cpu)->run({input});
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  const PlanStats& stats = (*gpu)->plan_stats();
  EXPECT_EQ(stats.backend, Backend::kVulkan);
  int f16_math_ops = 0;
  for (const OpPlacement& p : (*gpu)->placement()) {
    EXPECT_NE(p.device, "cpu") << p.op << " fell back to the CPU: " << p.reason;
    f16_math_ops += p.f16_arithmetic ? 1 : 0;
  }
  // f16 products where asked for and granted: f16 storage (not every device
  // has it) and shaderFloat16.
  if (f16_arithmetic && stats.gpu_precision.rfind("f16 storage", 0) == 0 &&
      stats.gpu_precision.find("no shaderFloat16") == std::string::npos) {
    EXPECT_GT(f16_math_ops, 0) << stats.gpu_precision;
  } else {
    EXPECT_EQ(f16_math_ops, 0) << stats.gpu_precision;
  }
  EXPECT_LE(relative_error((*a)[0], (*b)[0]), max_error);
  // A second run reuses the recorded command buffers.
  auto again = (*gpu)->run({input});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(relative_error((*again)[0], (*a)[0]), 0.0);
}

TEST(ZooModelsVulkan, SmallCnn) { expect_vulkan_agrees(test::load_built_model(zoo::small_cnn(2)), GpuPrecision::kF32, 1e-4); }
TEST(ZooModelsVulkan, SmallCnnF16) { expect_vulkan_agrees(test::load_built_model(zoo::small_cnn(2)), GpuPrecision::kF16Storage, 2e-2); }
TEST(ZooModelsVulkan, MobileNetV2) { expect_vulkan_agrees(test::load_built_model(zoo::mobilenet_v2(1)), GpuPrecision::kF32, 1e-4); }
TEST(ZooModelsVulkan, MobileNetV2F16) {
  expect_vulkan_agrees(test::load_built_model(zoo::mobilenet_v2(1)), GpuPrecision::kF16Storage, 3e-2);
}
// f16 products as well (SessionOptions::gpu_f16_arithmetic): within 5.1e-3
// of the CPU's output on lavapipe, 2.9e-3 with f16 storage alone.
TEST(ZooModelsVulkan, MobileNetV2F16Arithmetic) {
  expect_vulkan_agrees(test::load_built_model(zoo::mobilenet_v2(1)), GpuPrecision::kF16Storage, 3e-2, true);
}
TEST(ZooModelsVulkan, ResNet18) { expect_vulkan_agrees(test::load_built_model(zoo::resnet18(1)), GpuPrecision::kF32, 1e-4); }

}  // namespace
}  // namespace mote
