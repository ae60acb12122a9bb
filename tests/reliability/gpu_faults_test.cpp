// GPU faults injected into the Vulkan layer (runtime/vulkan/faults.hpp): a
// lost device, exhausted device memory, a pipeline that fails to build, each
// under both SessionOptions::gpu_faults policies, for inference and for
// training. The outcome is either the CPU's result or a kGpuFault error,
// never a crash or wrong data, and later calls work.
#include <gtest/gtest.h>

#if MOTE_HAS_VULKAN
#include "examples/model_zoo/model_zoo.hpp"
#include "mote/mote.hpp"
#include "mote/training.hpp"
#include "runtime/vulkan/device.hpp"
#include "runtime/vulkan/faults.hpp"
#include "runtime/vulkan/pipelines.hpp"
#include "tests/support/model_util.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

class GpuFaults : public ::testing::Test {
 protected:
  void SetUp() override { MOTE_REQUIRE_VULKAN(); }
  // An injected loss is only simulated: undo it so later tests in this
  // process (when run outside CTest) have the GPU again.
  void TearDown() override { vk::reset_injected_faults(); }
};

SessionOptions vulkan_options(GpuFaultPolicy policy) {
  SessionOptions o;
  o.backend = Backend::kVulkan;
  o.threads = 1;
  o.min_gpu_island_elements = 0;
  o.gpu_faults = policy;
  return o;
}

// y = sigmoid(relu(x + c) * 0.5), x: [N, 8] with N dynamic.
std::shared_ptr<const Model> chain_model() {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {-1, 8});
  int c = b.add_constant("c", random_tensor(DType::F32, {8}, 5));
  int half = b.add_constant("half", Tensor::from_vector<float>({}, {0.5f}));
  int s = b.add_op(fb::OpType::Add, {x, c}, 1, "add")[0];
  int r = b.add_op(fb::OpType::Relu, {s}, 1, "relu")[0];
  int m = b.add_op(fb::OpType::Mul, {r, half}, 1, "mul")[0];
  b.mark_output(b.add_op(fb::OpType::Sigmoid, {m}, 1, "sigmoid")[0], "y");
  return load_built(b, "chain.mote");
}

Tensor cpu_result(const std::shared_ptr<const Model>& model, const Tensor& x) {
  SessionOptions o;
  o.threads = 1;
  auto s = Session::create(model, o);
  auto out = (*s)->run({x});
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  return out.ok() ? (*out)[0] : Tensor();
}

TEST_F(GpuFaults, DeviceLostDuringARunFinishesOnTheCpu) {
  auto model = load_built(zoo::small_cnn(), "small_cnn.mote");
  Tensor x = random_tensor(DType::F32, {1, 1, 28, 28}, 1);
  Tensor expected = cpu_result(model, x);
  auto session = Session::create(model, vulkan_options(GpuFaultPolicy::kFallBackToCpu));
  ASSERT_TRUE(session.ok());
  auto first = (*session)->run({x});
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  EXPECT_GT((*session)->plan_stats().ops_gpu, 0);

  vk::arm_fault(vk::Fault::kDeviceLost);
  auto hit = (*session)->run({x});
  ASSERT_TRUE(hit.ok()) << hit.status().to_string();
  expect_tensors_near((*hit)[0], expected, 1e-5, 1e-6, "the run that hit the fault");
  EXPECT_EQ((*session)->plan_stats().ops_gpu, 0);
  EXPECT_NE((*session)->plan_stats().gpu_fault.find("VK_ERROR_DEVICE_LOST"), std::string::npos)
      << (*session)->plan_stats().gpu_fault;

  // Later runs, and sessions created after the loss, run on the CPU.
  for (int k = 0; k < 3; ++k) {
    auto later = (*session)->run({x});
    ASSERT_TRUE(later.ok()) << later.status().to_string();
    expect_tensors_near((*later)[0], expected, 1e-5, 1e-6, "a later run");
  }
  auto fresh = Session::create(model, vulkan_options(GpuFaultPolicy::kFallBackToCpu));
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ((*fresh)->options().backend, Backend::kCpu);
  auto out = (*fresh)->run({x});
  ASSERT_TRUE(out.ok());
  expect_tensors_near((*out)[0], expected, 1e-5, 1e-6, "a session made after the loss");
}

TEST_F(GpuFaults, DeviceLostWithAnInputWrittenInPlaceIsAnError) {
  auto model = load_built(zoo::small_cnn(), "small_cnn.mote");
  Tensor x = random_tensor(DType::F32, {1, 1, 28, 28}, 3);
  Tensor expected = cpu_result(model, x);
  auto session = Session::create(model, vulkan_options(GpuFaultPolicy::kFallBackToCpu));
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->prepare().ok());
  auto view = (*session)->mapped_input(model->inputs()[0].name);
  if (!view.ok()) GTEST_SKIP() << view.status().to_string();
  std::copy(x.data<float>(), x.data<float>() + x.numel(), view->data<float>());
  // The loss takes the input's only copy with it: no silent CPU result
  // computed from memory whose contents are gone.
  vk::arm_fault(vk::Fault::kDeviceLost);
  auto hit = (*session)->run({*view});
  ASSERT_FALSE(hit.ok());
  EXPECT_EQ(hit.status().code(), StatusCode::kGpuFault);
  EXPECT_NE(hit.status().message().find("was in memory the failed GPU run writes"), std::string::npos)
      << hit.status().message();
  auto next = (*session)->run({x});
  ASSERT_TRUE(next.ok()) << next.status().to_string();
  expect_tensors_near((*next)[0], expected, 1e-5, 1e-6, "the run with a host input after the loss");
}

TEST_F(GpuFaults, DeviceLostDuringARunCanBeReturnedAsAnError) {
  auto model = load_built(zoo::small_cnn(), "small_cnn.mote");
  Tensor x = random_tensor(DType::F32, {1, 1, 28, 28}, 2);
  Tensor expected = cpu_result(model, x);
  auto session = Session::create(model, vulkan_options(GpuFaultPolicy::kReturnError));
  ASSERT_TRUE((*session)->prepare().ok());
  vk::arm_fault(vk::Fault::kDeviceLost);
  auto hit = (*session)->run({x});
  ASSERT_FALSE(hit.ok());
  EXPECT_EQ(hit.status().code(), StatusCode::kGpuFault);
  EXPECT_NE(hit.status().message().find("VK_ERROR_DEVICE_LOST"), std::string::npos) << hit.status().message();
  EXPECT_NE(hit.status().message().find("small_cnn.mote"), std::string::npos) << hit.status().message();
  auto next = (*session)->run({x});
  ASSERT_TRUE(next.ok()) << next.status().to_string();
  expect_tensors_near((*next)[0], expected, 1e-5, 1e-6, "the run after the error");
  EXPECT_EQ((*session)->plan_stats().backend, Backend::kCpu);
}

TEST_F(GpuFaults, OutOfDeviceMemoryAtPrepareRunsThatPlanOnTheCpu) {
  auto model = chain_model();
  Tensor x4 = random_tensor(DType::F32, {4, 8}, 3);
  auto session = Session::create(model, vulkan_options(GpuFaultPolicy::kFallBackToCpu));
  vk::arm_fault(vk::Fault::kOutOfDeviceMemory);
  auto out = (*session)->run({x4});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  expect_tensors_near((*out)[0], cpu_result(model, x4), 1e-6, 1e-7, "the plan that fell back");
  EXPECT_EQ((*session)->plan_stats().ops_gpu, 0);
  EXPECT_NE((*session)->plan_stats().gpu_fault.find("VK_ERROR_OUT_OF_DEVICE_MEMORY"), std::string::npos)
      << (*session)->plan_stats().gpu_fault;
  // Memory may be free again: the next plan (new shapes) tries the GPU.
  Tensor x5 = random_tensor(DType::F32, {5, 8}, 4);
  out = (*session)->run({x5});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*session)->plan_stats().ops_gpu, 4);
  expect_tensors_near((*out)[0], cpu_result(model, x5), 1e-5, 1e-6, "the next plan, on the GPU");
}

TEST_F(GpuFaults, OutOfDeviceMemoryAtPrepareCanBeReturnedAsAnError) {
  auto model = chain_model();
  auto session = Session::create(model, vulkan_options(GpuFaultPolicy::kReturnError));
  vk::arm_fault(vk::Fault::kOutOfDeviceMemory);
  Status st = (*session)->prepare({{"x", {4, 8}}});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kGpuFault);
  EXPECT_NE(st.message().find("VK_ERROR_OUT_OF_DEVICE_MEMORY"), std::string::npos) << st.message();
  // The same call again succeeds, on the GPU.
  ASSERT_TRUE((*session)->prepare({{"x", {4, 8}}}).ok());
  EXPECT_EQ((*session)->plan_stats().ops_gpu, 4);
}

TEST_F(GpuFaults, APipelineThatFailsToBuildSendsItsOpToTheCpu) {
  auto model = chain_model();
  auto device = vk::Device::get();
  ASSERT_TRUE(device.ok());
  // Drop the built pipelines so this session builds its own, in op order.
  device.value()->pipelines().reset();
  vk::arm_fault(vk::Fault::kPipeline, 2);  // the second: Relu's
  for (GpuFaultPolicy policy : {GpuFaultPolicy::kFallBackToCpu, GpuFaultPolicy::kReturnError}) {
    auto session = Session::create(model, vulkan_options(policy));
    Tensor x = random_tensor(DType::F32, {6, 8}, 6);
    auto out = (*session)->run({x});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    expect_tensors_near((*out)[0], cpu_result(model, x), 1e-5, 1e-6, "with one op on the CPU");
    if (policy == GpuFaultPolicy::kFallBackToCpu) {
      // Not a GPU fault: one op's kernel is missing, the rest stays on the GPU.
      EXPECT_EQ((*session)->plan_stats().ops_gpu, 3);
      EXPECT_TRUE((*session)->plan_stats().gpu_fault.empty());
      bool named = false;
      for (const OpPlacement& p : (*session)->placement()) {
        named = named || (p.device == "cpu" && p.reason.find("pipeline failed to build") != std::string::npos);
      }
      EXPECT_TRUE(named);
    } else {
      EXPECT_EQ((*session)->plan_stats().ops_gpu, 4);  // the fault fired once; this build succeeded
    }
  }
}

// x [8, 4] -> Gemm -> Tanh -> Gemm -> logits [8, 3], trained with SGD.
std::shared_ptr<const Model> mlp() {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {8, 4});
  int w1 = b.add_constant("fc1.weight", random_tensor(DType::F32, {4, 16}, 11, -0.5, 0.5));
  int b1 = b.add_constant("fc1.bias", random_tensor(DType::F32, {16}, 12, -0.1, 0.1));
  int w2 = b.add_constant("fc2.weight", random_tensor(DType::F32, {16, 3}, 13, -0.5, 0.5));
  int b2 = b.add_constant("fc2.bias", random_tensor(DType::F32, {3}, 14, -0.1, 0.1));
  int h = b.add_op(fb::OpType::Gemm, {x, w1, b1}, fb::GemmAttrsT{})[0];
  h = b.add_op(fb::OpType::Tanh, {h})[0];
  b.mark_output(b.add_op(fb::OpType::Gemm, {h, w2, b2}, fb::GemmAttrsT{})[0], "logits");
  return load_built(b, "mlp.mote");
}

struct Trainer {
  std::unique_ptr<TrainingSession> session;
  Tensor x = random_tensor(DType::F32, {8, 4}, 20);
  Tensor labels = Tensor::from_vector<int64_t>({8}, {0, 1, 2, 0, 1, 2, 0, 1});
  explicit Trainer(const SessionOptions& options) {
    TrainingOptions t;
    t.optimizer = {.kind = OptimizerKind::kAdamW, .learning_rate = 0.05f};
    t.session = options;
    auto created = TrainingSession::create(mlp(), t);
    EXPECT_TRUE(created.ok()) << created.status().to_string();
    session = std::move(*created);
  }
  Result<float> step() { return session->train_step({x}, labels); }
  std::vector<Tensor> weights() const {
    std::vector<Tensor> w;
    for (const std::string& name : session->trainable_names()) w.push_back(session->parameter(name)->clone());
    return w;
  }
};

void expect_same_weights(const std::vector<Tensor>& a, const std::vector<Tensor>& b, double rtol) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) expect_tensors_near(a[i], b[i], rtol, rtol * 0.1, "parameter " + std::to_string(i));
}

TEST_F(GpuFaults, TrainingSurvivesALostDeviceWithItsWeightsIntact) {
  SessionOptions cpu;
  cpu.threads = 1;
  Trainer reference(cpu);
  for (int k = 0; k < 4; ++k) ASSERT_TRUE(reference.step().ok());

  // Fall back: the step that hit the fault is finished on the CPU.
  Trainer fallback(vulkan_options(GpuFaultPolicy::kFallBackToCpu));
  ASSERT_TRUE(fallback.step().ok());
  EXPECT_GT(fallback.session->train_plan_stats().ops_gpu, 0);
  vk::arm_fault(vk::Fault::kDeviceLost);
  for (int k = 1; k < 4; ++k) ASSERT_TRUE(fallback.step().ok()) << "step " << k;
  EXPECT_EQ(fallback.session->step(), 4);
  expect_same_weights(fallback.weights(), reference.weights(), 1e-4);
  vk::reset_injected_faults();

  // Return the error: that step changes nothing; repeating it continues.
  Trainer strict(vulkan_options(GpuFaultPolicy::kReturnError));
  ASSERT_TRUE(strict.step().ok());
  std::vector<Tensor> before = strict.weights();
  vk::arm_fault(vk::Fault::kDeviceLost);
  auto failed = strict.step();
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), StatusCode::kGpuFault);
  EXPECT_EQ(strict.session->step(), 1);
  expect_same_weights(strict.weights(), before, 0);
  for (int k = 1; k < 4; ++k) ASSERT_TRUE(strict.step().ok()) << "step " << k;
  expect_same_weights(strict.weights(), reference.weights(), 1e-4);
}

TEST_F(GpuFaults, TheEnvironmentSwitchIsParsedStrictly) {
  setenv("MOTE_VK_FAULT", "device_lost:3,pipeline", 1);
  EXPECT_TRUE(vk::arm_faults_from_environment().ok());
  setenv("MOTE_VK_FAULT", "device_lost:0", 1);
  EXPECT_FALSE(vk::arm_faults_from_environment().ok());
  setenv("MOTE_VK_FAULT", "gpu_on_fire", 1);
  Status st = vk::arm_faults_from_environment();
  EXPECT_NE(st.message().find("unknown fault 'gpu_on_fire'"), std::string::npos) << st.message();
  unsetenv("MOTE_VK_FAULT");
  // device_lost:3 fires on the third submit, not before.
  EXPECT_FALSE(vk::fault_fires(vk::Fault::kDeviceLost));
  EXPECT_FALSE(vk::fault_fires(vk::Fault::kDeviceLost));
  EXPECT_TRUE(vk::fault_fires(vk::Fault::kDeviceLost));
  EXPECT_FALSE(vk::fault_fires(vk::Fault::kDeviceLost));
}

}  // namespace
}  // namespace mote::test
#endif  // MOTE_HAS_VULKAN
