// Whole networks: the optimised CPU backend against the reference kernels on
// the model zoo (the same graphs the benchmarks time).
#include <gtest/gtest.h>

#include "model_zoo.hpp"
#include "mote/mote.hpp"
#include "tests/support/op_test_util.hpp"

namespace mote {
namespace {

std::shared_ptr<const Model> load(GraphBuilder builder) {
  auto bytes = builder.serialize();
  EXPECT_TRUE(bytes.ok());
  static std::vector<Tensor> keep_alive;  // models borrow their bytes
  Tensor storage = Tensor::zeros(DType::U8, {static_cast<int64_t>(bytes->size())});
  std::copy(bytes->begin(), bytes->end(), storage.data<uint8_t>());
  keep_alive.push_back(storage);
  auto model = Model::from_buffer(storage.raw(), storage.bytes(), "zoo.mote");
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  return *model;
}

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

TEST(ZooModels, SmallCnnCpuMatchesReference) { expect_backends_agree(load(zoo::small_cnn(2)), 2); }
TEST(ZooModels, MobileNetV2CpuMatchesReference) { expect_backends_agree(load(zoo::mobilenet_v2(1)), 2); }
TEST(ZooModels, ResNet18CpuMatchesReference) { expect_backends_agree(load(zoo::resnet18(1)), 2); }

}  // namespace
}  // namespace mote
