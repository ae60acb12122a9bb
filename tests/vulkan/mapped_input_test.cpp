// Zero-copy inputs on unified memory (Session::mapped_input): the caller
// writes an input straight into the device memory the GPU reads; results
// match the CPU backend, the bytes survive the run (no intermediate shares
// them, even where a CPU op reads the input last), and every case where the
// GPU cannot read in place says why.
#include "runtime/vulkan/device.hpp"
#include "tests/support/model_util.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

// y = relu(sigmoid(x * c + c) * c) + x, the last Add forced to the CPU in
// the tests: x is read by the first GPU op and by a CPU op after the rest.
std::shared_ptr<const Model> model_reading_x_twice(int64_t rows) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {rows, 64});
  int c = b.add_constant("c", random_tensor(DType::F32, {64}, 11));
  int m = b.add_op(fb::OpType::Mul, {x, c}, 1, "mul")[0];
  int a = b.add_op(fb::OpType::Add, {m, c}, 1, "add")[0];
  int s = b.add_op(fb::OpType::Sigmoid, {a}, 1, "sigmoid")[0];
  int m2 = b.add_op(fb::OpType::Mul, {s, c}, 1, "mul2")[0];
  int r = b.add_op(fb::OpType::Relu, {m2}, 1, "relu")[0];
  b.mark_output(b.add_op(fb::OpType::Add, {r, x}, 1, "residual")[0], "y");
  return load_built(b, "twice.mote");
}

SessionOptions gpu_options() {
  SessionOptions o;
  o.backend = Backend::kVulkan;
  o.min_gpu_island_elements = 0;
  o.cpu_ops = {"residual"};
  return o;
}

bool unified_memory() {
  auto device = vk::Device::get();
  return device.ok() && (*device)->features().host_visible_device_local;
}

TEST(MappedInput, WrittenInPlaceMatchesCpuAndKeepsItsBytes) {
  MOTE_REQUIRE_VULKAN();
  auto model = model_reading_x_twice(256);
  auto session = Session::create(model, gpu_options());
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->prepare().ok());
  auto view = (*session)->mapped_input("x");
  if (!unified_memory()) {
    ASSERT_EQ(view.status().code(), StatusCode::kUnsupported);
    EXPECT_NE(view.status().message().find("discrete GPU"), std::string::npos) << view.status().message();
    return;
  }
  ASSERT_TRUE(view.ok()) << view.status().to_string();
  ASSERT_EQ(view->shape(), (Shape{256, 64}));
  for (uint32_t seed : {1u, 2u}) {
    Tensor x = random_tensor(DType::F32, {256, 64}, seed);
    std::copy(x.data<float>(), x.data<float>() + x.numel(), view->data<float>());
    auto out = (*session)->run(std::vector<Tensor>{*view});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    expect_tensors_near(out->at(0), run_on_cpu(model, {x})[0], 1e-5, 1e-6, "y, seed " + std::to_string(seed));
    // Nothing else was given these bytes during the run.
    expect_tensors_near(*view, x, 0, 0, "x after the run");
  }
  // An ordinary host input still works in the same session.
  Tensor x = random_tensor(DType::F32, {256, 64}, 3);
  auto out = (*session)->run(std::vector<Tensor>{x});
  ASSERT_TRUE(out.ok());
  expect_tensors_near(out->at(0), run_on_cpu(model, {x})[0], 1e-5, 1e-6, "y from a host input");
}

TEST(MappedInput, OnlyInputsWrittenInPlaceKeepTheirBytes) {
  MOTE_REQUIRE_VULKAN();
  if (!unified_memory()) GTEST_SKIP() << "inputs go through staging on this device";
  auto model = model_reading_x_twice(256);
  auto session = Session::create(model, gpu_options());
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->prepare().ok());
  // x is last read by the first GPU op: its bytes go to later intermediates
  // until the caller asks to write it in place.
  const uint64_t shared = (*session)->plan_stats().device_arena_bytes;
  auto view = (*session)->mapped_input("x");
  ASSERT_TRUE(view.ok()) << view.status().to_string();
  EXPECT_GT((*session)->plan_stats().device_arena_bytes, shared);
  Tensor x = random_tensor(DType::F32, {256, 64}, 8);
  std::copy(x.data<float>(), x.data<float>() + x.numel(), view->data<float>());
  auto out = (*session)->run(std::vector<Tensor>{*view});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  expect_tensors_near(out->at(0), run_on_cpu(model, {x})[0], 1e-5, 1e-6, "y");
}

TEST(MappedInput, AViewPassedForAnotherInputIsCopiedFirst) {
  MOTE_REQUIRE_VULKAN();
  if (!unified_memory()) GTEST_SKIP() << "inputs go through staging on this device";
  // y = a * c + b, both inputs read on the GPU.
  GraphBuilder g;
  int a = g.add_input("a", DType::F32, {128, 64});
  int b = g.add_input("b", DType::F32, {128, 64});
  int m = g.add_op(fb::OpType::Mul, {a, g.add_constant("c", random_tensor(DType::F32, {64}, 12))}, 1, "mul")[0];
  g.mark_output(g.add_op(fb::OpType::Add, {m, b}, 1, "add")[0], "y");
  auto model = load_built(g, "two_inputs.mote");
  SessionOptions o;
  o.backend = Backend::kVulkan;
  o.min_gpu_island_elements = 0;
  auto session = Session::create(model, o);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->prepare().ok());
  auto view_a = (*session)->mapped_input("a");
  ASSERT_TRUE(view_a.ok()) << view_a.status().to_string();
  Tensor x = random_tensor(DType::F32, {128, 64}, 5), h = random_tensor(DType::F32, {128, 64}, 6);
  std::copy(x.data<float>(), x.data<float>() + x.numel(), view_a->data<float>());
  // a's view as b, a host tensor as a: a's upload overwrites the view's
  // bytes, so b must read a copy taken before.
  auto out = (*session)->run(std::vector<Tensor>{h, *view_a});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  expect_tensors_near(out->at(0), run_on_cpu(model, {h, x})[0], 1e-5, 1e-6, "y");
  expect_tensors_near(*view_a, h, 0, 0, "a's bytes hold the host tensor given for a");
}

TEST(MappedInput, OutlivesItsSession) {
  MOTE_REQUIRE_VULKAN();
  if (!unified_memory()) GTEST_SKIP() << "inputs go through staging on this device";
  auto model = model_reading_x_twice(8);
  Tensor view;
  {
    auto session = Session::create(model, gpu_options());
    ASSERT_TRUE(session.ok());
    ASSERT_TRUE((*session)->prepare().ok());
    auto v = (*session)->mapped_input("x");
    ASSERT_TRUE(v.ok()) << v.status().to_string();
    view = *v;
  }
  // The Tensor keeps the device memory alive: writing and reading it is safe.
  for (int64_t i = 0; i < view.numel(); ++i) view.data<float>()[i] = 0.5f;
  EXPECT_FLOAT_EQ(view.data<float>()[view.numel() - 1], 0.5f);
  // It is an ordinary input to another session.
  auto other = Session::create(model, gpu_options());
  ASSERT_TRUE(other.ok());
  auto out = (*other)->run(std::vector<Tensor>{view});
  ASSERT_TRUE(out.ok());
  expect_tensors_near(out->at(0), run_on_cpu(model, {view.clone()})[0], 1e-5, 1e-6, "y");
}

TEST(MappedInput, SaysWhyNot) {
  MOTE_REQUIRE_VULKAN();
  auto model = model_reading_x_twice(8);
  auto session = Session::create(model, gpu_options());
  ASSERT_TRUE(session.ok());
  EXPECT_EQ((*session)->mapped_input("x").status().code(), StatusCode::kInvalidArgument);  // not prepared
  ASSERT_TRUE((*session)->prepare().ok());
  EXPECT_EQ((*session)->mapped_input("nope").status().code(), StatusCode::kNotFound);

  auto cpu = Session::create(model, SessionOptions{});
  ASSERT_TRUE(cpu.ok());
  ASSERT_TRUE((*cpu)->prepare().ok());
  auto on_cpu = (*cpu)->mapped_input("x");
  EXPECT_EQ(on_cpu.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(on_cpu.status().message().find("twice.mote: input 'x' cannot be written in place"), std::string::npos)
      << on_cpu.status().message();

  if (!unified_memory() || !device_has_fp16_storage()) return;
  SessionOptions f16 = gpu_options();
  f16.gpu_precision = GpuPrecision::kF16Storage;
  auto half = Session::create(model, f16);
  ASSERT_TRUE(half.ok());
  ASSERT_TRUE((*half)->prepare().ok());
  auto stored_f16 = (*half)->mapped_input("x");
  EXPECT_EQ(stored_f16.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(stored_f16.status().message().find("f16"), std::string::npos) << stored_f16.status().message();

  // Read only by the CPU: nothing on the GPU to write into.
  SessionOptions mul_on_cpu = gpu_options();
  mul_on_cpu.cpu_ops = {"mul", "residual"};
  auto cpu_reader = Session::create(model, mul_on_cpu);
  ASSERT_TRUE(cpu_reader.ok());
  ASSERT_TRUE((*cpu_reader)->prepare().ok());
  auto unread = (*cpu_reader)->mapped_input("x");
  EXPECT_EQ(unread.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(unread.status().message().find("no GPU op reads it"), std::string::npos) << unread.status().message();
}

}  // namespace
}  // namespace mote::test
