// Whole networks: the optimised CPU backend against the reference kernels on
// the model zoo (the same graphs the benchmarks time).
#include <gtest/gtest.h>

#include "model_zoo.hpp"
#include "mote/mote.hpp"
#include "tests/models/zoo_test_util.hpp"
#include "tests/support/op_test_util.hpp"

namespace mote {
namespace {

void expect_backends_agree(const std::shared_ptr<const Model>& model, int threads) {
  Tensor input = test::random_tensor(DType::F32, model->inputs()[0].shape, 5, 0.0, 1.0);
  auto cpu = Session::create(model, {.backend = Backend::kCpu, .threads = threads});
  auto ref = Session::create(model, {.backend = Backend::kReference, .threads = 1});
  auto a = (*cpu)->run({input});
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  auto r = (*ref)->run({input});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  // Deep networks accumulate float rounding differently in blocked GEMMs.
  test::expect_tensors_near((*a)[0], (*r)[0], 1e-3, 1e-3, "logits");
}

TEST(ZooModels, SmallCnnCpuMatchesReference) { expect_backends_agree(test::load_built_model(zoo::small_cnn(2)), 2); }
TEST(ZooModels, MobileNetV2CpuMatchesReference) { expect_backends_agree(test::load_built_model(zoo::mobilenet_v2(1)), 2); }
TEST(ZooModels, ResNet18CpuMatchesReference) { expect_backends_agree(test::load_built_model(zoo::resnet18(1)), 2); }

}  // namespace
}  // namespace mote
