// Placement and fallback: ops forced off the GPU, islands too small for the
// GPU, run-time shapes, Vulkan missing from the environment, auto backend.
// Every case must give the CPU backend's results.
#include <cstdlib>

#include "runtime/vulkan/device.hpp"
#include "tests/support/model_util.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

// y = sigmoid(relu(x + c) * d), z = exp(relu(...)) as a second output.
std::shared_ptr<const Model> chain_model(int64_t n) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {n, 8});
  int c = b.add_constant("c", random_tensor(DType::F32, {8}, 5));
  int d = b.add_constant("d", random_tensor(DType::F32, {n, 1}, 6));
  int s = b.add_op(fb::OpType::Add, {x, c}, 1, "add")[0];
  int r = b.add_op(fb::OpType::Relu, {s}, 1, "relu")[0];
  int m = b.add_op(fb::OpType::Mul, {r, d}, 1, "mul")[0];
  b.mark_output(b.add_op(fb::OpType::Sigmoid, {m}, 1, "sigmoid")[0], "y");
  b.mark_output(b.add_op(fb::OpType::Exp, {r}, 1, "exp")[0], "z");
  return load_built(b, "chain.mote");
}

std::vector<Tensor> run(std::shared_ptr<const Model> model, SessionOptions options, const Tensor& x,
                        std::unique_ptr<Session>* keep = nullptr) {
  auto session = Session::create(model, options);
  EXPECT_TRUE(session.ok()) << session.status().to_string();
  auto out = (*session)->run(std::vector<Tensor>{x});
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  if (keep) *keep = std::move(*session);
  return out.ok() ? *out : std::vector<Tensor>{};
}

std::string device_of(const Session& s, const std::string& op_name) {
  for (const OpPlacement& p : s.placement()) {
    if (p.op.find("'" + op_name + "'") != std::string::npos) return p.device + (p.reason.empty() ? "" : ": " + p.reason);
  }
  return "missing";
}

void expect_same(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) expect_tensors_near(a[i], b[i], 1e-5, 1e-6, "output " + std::to_string(i));
}

SessionOptions vulkan_options() {
  SessionOptions o;
  o.backend = Backend::kVulkan;
  o.min_gpu_island_elements = 0;
  return o;
}

TEST(Placement, AllOnGpuMatchesCpu) {
  MOTE_REQUIRE_VULKAN();
  auto model = chain_model(37);
  Tensor x = random_tensor(DType::F32, {37, 8}, 1);
  std::unique_ptr<Session> s;
  auto gpu = run(model, vulkan_options(), x, &s);
  expect_same(gpu, run(model, {}, x));
  EXPECT_EQ(s->plan_stats().backend, Backend::kVulkan);
  EXPECT_EQ(s->plan_stats().ops_gpu, 5);
  EXPECT_EQ(s->plan_stats().gpu_segments, 1);
  // x up; y and z down. relu's output stays on the device (no host copy).
  EXPECT_EQ(s->plan_stats().gpu_transfers, 3);
  // The command buffer is resubmitted: a second run with new data is right too.
  Tensor x2 = random_tensor(DType::F32, {37, 8}, 2);
  auto again = s->run(std::vector<Tensor>{x2});
  ASSERT_TRUE(again.ok());
  expect_same(*again, run(model, {}, x2));
}

// A device with a submission limit (the Adreno quirk, or
// MOTE_VK_MAX_DISPATCHES_PER_SUBMIT as CTest's vulkan_split_submissions sets)
// runs a chain of GPU ops as several command buffers, with the same results.
TEST(Placement, SubmissionLimitCutsSegments) {
  MOTE_REQUIRE_VULKAN();
  const uint32_t limit = vk::Device::get().value()->features().max_dispatches_per_submit;
  if (limit == 0) GTEST_SKIP() << "no submission limit on this device (MOTE_VK_MAX_DISPATCHES_PER_SUBMIT sets one)";
  auto model = chain_model(37);
  Tensor x = random_tensor(DType::F32, {37, 8}, 4);
  std::unique_ptr<Session> s;
  auto gpu = run(model, vulkan_options(), x, &s);
  expect_same(gpu, run(model, {}, x));
  const PlanStats& stats = s->plan_stats();
  EXPECT_EQ(stats.ops_gpu, 5);
  EXPECT_EQ(stats.gpu_dispatches, 5);  // one per op
  EXPECT_EQ(stats.gpu_segments, static_cast<int>((5 + limit - 1) / limit));
  Tensor x2 = random_tensor(DType::F32, {37, 8}, 5);
  auto again = s->run(std::vector<Tensor>{x2});
  ASSERT_TRUE(again.ok());
  expect_same(*again, run(model, {}, x2));
}

TEST(Placement, OpForcedOffTheGpuSplitsSegments) {
  MOTE_REQUIRE_VULKAN();
  auto model = chain_model(37);
  Tensor x = random_tensor(DType::F32, {37, 8}, 3);
  for (const std::string& forced : {std::string("Relu"), std::string("mul")}) {
    SessionOptions o = vulkan_options();
    o.cpu_ops = {forced};
    std::unique_ptr<Session> s;
    auto gpu = run(model, o, x, &s);
    expect_same(gpu, run(model, {}, x));
    std::string where = device_of(*s, forced == "Relu" ? "relu" : "mul");
    EXPECT_EQ(where.rfind("cpu: forced", 0), 0u) << where;
    EXPECT_EQ(device_of(*s, "add"), "vulkan");
    EXPECT_EQ(s->plan_stats().ops_cpu, 1);
    EXPECT_GE(s->plan_stats().gpu_segments, 2);
  }
}

TEST(Placement, F16StorageStaysClose) {
  MOTE_REQUIRE_VULKAN();
  if (!device_has_fp16_storage()) GTEST_SKIP() << "no 16-bit storage";
  auto model = chain_model(129);
  Tensor x = random_tensor(DType::F32, {129, 8}, 4);
  SessionOptions o = vulkan_options();
  o.gpu_precision = GpuPrecision::kF16Storage;
  auto gpu = run(model, o, x);
  auto cpu = run(model, {}, x);
  ASSERT_EQ(gpu.size(), cpu.size());
  for (size_t i = 0; i < gpu.size(); ++i) expect_tensors_near(gpu[i], cpu[i], 5e-3, 5e-3);
}

// y = exp(reshape(relu(reshape(x)) + w)), with the last Reshape's output
// also a graph output.
std::shared_ptr<const Model> reshape_model(int64_t n) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {n, 8});
  int flat = b.add_constant("flat", Tensor::from_vector<int64_t>({1}, {n * 8}));
  int back = b.add_constant("back", Tensor::from_vector<int64_t>({2}, {n, 8}));
  int w = b.add_constant("w", random_tensor(DType::F32, {n * 8}, 7));
  int v = b.add_op(fb::OpType::Reshape, {x, flat}, 1, "view_of_input")[0];
  int r = b.add_op(fb::OpType::Relu, {v}, 1, "relu")[0];
  int s = b.add_op(fb::OpType::Add, {r, w}, 1, "add")[0];
  int u = b.add_op(fb::OpType::Reshape, {s, back}, 1, "view_of_sum")[0];
  b.mark_output(u, "u");
  b.mark_output(b.add_op(fb::OpType::Exp, {u}, 1, "exp")[0], "y");
  return load_built(b, "reshape.mote");
}

// A Reshape on the GPU is a view: its output shares its input's device
// memory and nothing is dispatched for it, whether the input was uploaded or
// made on the GPU and whether the output is downloaded; in f16 storage too,
// and on a second run of the recorded command buffer.
TEST(Placement, ReshapesAreViewsOnTheGpu) {
  MOTE_REQUIRE_VULKAN();
  auto model = reshape_model(37);
  for (bool f16 : {false, true}) {
    if (f16 && !device_has_fp16_storage()) continue;
    SessionOptions o = vulkan_options();
    if (f16) o.gpu_precision = GpuPrecision::kF16Storage;
    const double tol = f16 ? 5e-3 : 1e-6;
    for (uint32_t seed : {1u, 2u}) {
      SCOPED_TRACE(std::string(f16 ? "f16" : "f32") + " storage, seed " + std::to_string(seed));
      Tensor x = random_tensor(DType::F32, {37, 8}, seed);
      std::unique_ptr<Session> s;
      auto gpu = run(model, o, x, &s);
      auto cpu = run(model, {}, x);
      ASSERT_EQ(gpu.size(), cpu.size());
      for (size_t i = 0; i < gpu.size(); ++i) expect_tensors_near(gpu[i], cpu[i], tol, tol);
      auto again = s->run(std::vector<Tensor>{x});
      ASSERT_TRUE(again.ok());
      for (size_t i = 0; i < gpu.size(); ++i) expect_tensors_near((*again)[i], cpu[i], tol, tol);
      EXPECT_EQ(s->plan_stats().ops_gpu, 5);
      EXPECT_EQ(s->plan_stats().gpu_dispatches, 3);  // Relu, Add and Exp
      EXPECT_EQ(s->plan_stats().gpu_views, 2);
    }
  }
}

TEST(Placement, SmallIslandStaysOnCpu) {
  MOTE_REQUIRE_VULKAN();
  auto model = chain_model(3);  // 5 ops, 120 output elements in all
  Tensor x = random_tensor(DType::F32, {3, 8}, 5);
  SessionOptions o;
  o.backend = Backend::kVulkan;  // default island threshold
  std::unique_ptr<Session> s;
  expect_same(run(model, o, x, &s), run(model, {}, x));
  EXPECT_EQ(s->plan_stats().ops_gpu, 0);
  EXPECT_NE(device_of(*s, "add").find("too small"), std::string::npos) << device_of(*s, "add");
}

TEST(Placement, RunTimeShapesRunOnCpu) {
  MOTE_REQUIRE_VULKAN();
  // Reshape to a shape computed from data: a dynamic step.
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {4, 6});
  int shape = b.add_input("shape", DType::I64, {2});
  int r = b.add_op(fb::OpType::Relu, {x}, 1, "relu")[0];
  b.mark_output(b.add_op(fb::OpType::Reshape, {r, shape}, 1, "reshape")[0], "y");
  auto model = load_built(b, "chain.mote");
  auto session = Session::create(model, vulkan_options());
  ASSERT_TRUE(session.ok());
  Tensor xv = random_tensor(DType::F32, {4, 6}, 9);
  auto out = (*session)->run(std::vector<Tensor>{xv, Tensor::from_vector<int64_t>({2}, {3, 8})});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].shape(), (Shape{3, 8}));
  for (int64_t i = 0; i < 24; ++i) EXPECT_EQ((*out)[0].data<float>()[i], std::max(0.0f, xv.data<float>()[i]));
  EXPECT_EQ(device_of(**session, "relu"), "vulkan");
  EXPECT_NE(device_of(**session, "reshape").find("run time"), std::string::npos) << device_of(**session, "reshape");
}

TEST(Placement, AutoUsesVulkanOnlyOnARealGpu) {
  MOTE_REQUIRE_VULKAN();
  SessionOptions o;
  o.backend = Backend::kAuto;
  auto session = Session::create(chain_model(8), o);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->prepare().ok());
  VkPhysicalDeviceType type = vk::Device::get().value()->info().type;
  bool gpu = type == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU || type == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
  EXPECT_EQ((*session)->plan_stats().backend, gpu ? Backend::kVulkan : Backend::kCpu);
}

TEST(Placement, EnvironmentOverridesTheBackend) {
  MOTE_REQUIRE_VULKAN();
  ::setenv("MOTE_BACKEND", "cpu", 1);
  auto session = Session::create(chain_model(8), vulkan_options());
  ::unsetenv("MOTE_BACKEND");
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->prepare().ok());
  EXPECT_EQ((*session)->plan_stats().backend, Backend::kCpu);
}

// Registered in CTest with VK_ICD_FILENAMES / VK_DRIVER_FILES pointing at
// nothing and MOTE_TEST_NO_VULKAN=1: Vulkan requested, CPU results.
TEST(NoVulkan, VulkanSessionRunsOnCpu) {
  if (!std::getenv("MOTE_TEST_NO_VULKAN")) GTEST_SKIP() << "run by the vulkan_unavailable CTest case";
  EXPECT_FALSE(vulkan_unavailable_reason().empty());
  auto model = chain_model(50);
  Tensor x = random_tensor(DType::F32, {50, 8}, 7);
  std::unique_ptr<Session> s;
  expect_same(run(model, vulkan_options(), x, &s), run(model, {}, x));
  EXPECT_EQ(s->plan_stats().backend, Backend::kCpu);
}

}  // namespace
}  // namespace mote::test
