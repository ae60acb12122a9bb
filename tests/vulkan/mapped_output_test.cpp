// Zero-copy outputs on unified memory (Session::mapped_output): run() hands
// out a GPU-made output as the device memory the GPU wrote it to; results
// match the CPU backend run after run, the bytes outlast later segments and
// the CPU ops that read them, a view passed back as an input (a recurrent
// state) is read correctly, and every case where it cannot be said why.
#include "runtime/vulkan/device.hpp"
#include "tests/support/model_util.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

bool unified_memory() {
  auto device = vk::Device::get();
  return device.ok() && (*device)->features().host_visible_device_local;
}

SessionOptions gpu_options(std::vector<std::string> cpu_ops = {}) {
  SessionOptions o;
  o.backend = Backend::kVulkan;
  o.min_gpu_island_elements = 0;
  o.cpu_ops = std::move(cpu_ops);
  return o;
}

// first = relu(x * c), made by the first GPU segment and read by a CPU
// Sigmoid; second = relu(sigmoid(first) * c + c), made by a second segment
// whose intermediates are as large as `first`.
std::shared_ptr<const Model> two_segment_model() {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {256, 64});
  int c = b.add_constant("c", random_tensor(DType::F32, {64}, 21));
  int first = b.add_op(fb::OpType::Relu, {b.add_op(fb::OpType::Mul, {x, c}, 1, "mul")[0]}, 1, "relu")[0];
  int s = b.add_op(fb::OpType::Sigmoid, {first}, 1, "sigmoid")[0];
  int t = b.add_op(fb::OpType::Mul, {s, c}, 1, "mul2")[0];
  int u = b.add_op(fb::OpType::Add, {t, c}, 1, "add2")[0];
  b.mark_output(first, "first");
  b.mark_output(b.add_op(fb::OpType::Relu, {u}, 1, "relu2")[0], "second");
  return load_built(b, "two_segments.mote");
}

// A prepared Vulkan session of two_segment_model with its Sigmoid on the CPU.
std::unique_ptr<Session> prepared_two_segment_session(const std::shared_ptr<const Model>& model) {
  auto session = Session::create(model, gpu_options({"sigmoid"}));
  EXPECT_TRUE(session.ok() && (*session)->prepare().ok());
  return session.ok() ? std::move(session).value() : nullptr;
}

TEST(MappedOutput, ReadInPlaceMatchesCpuRunAfterRun) {
  MOTE_REQUIRE_VULKAN();
  auto model = two_segment_model();
  auto session = prepared_two_segment_session(model);
  ASSERT_TRUE(session);
  ASSERT_GE(session->plan_stats().gpu_segments, 2);
  auto first = session->mapped_output("first");
  if (!unified_memory()) {
    ASSERT_EQ(first.status().code(), StatusCode::kUnsupported);
    EXPECT_NE(first.status().message().find("discrete GPU"), std::string::npos) << first.status().message();
    return;
  }
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  auto second = session->mapped_output("second");
  ASSERT_TRUE(second.ok()) << second.status().to_string();
  // Mapping `second` planned again: `first` lives in the new plan's memory.
  first = session->mapped_output("first");
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  ASSERT_EQ(first->shape(), (Shape{256, 64}));
  for (uint32_t seed : {1u, 2u, 3u}) {
    Tensor x = random_tensor(DType::F32, {256, 64}, seed);
    auto out = session->run(std::vector<Tensor>{x});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    const std::vector<Tensor> want = run_on_cpu(model, {x});
    const std::string run = ", seed " + std::to_string(seed);
    EXPECT_EQ(out->at(0).raw(), first->raw()) << "first was copied" << run;
    EXPECT_EQ(out->at(1).raw(), second->raw()) << "second was copied" << run;
    // `first` was made in the first segment: the second one's intermediates
    // did not take its bytes.
    expect_tensors_near(*first, want[0], 1e-5, 1e-6, "first" + run);
    expect_tensors_near(*second, want[1], 1e-5, 1e-6, "second" + run);
  }
}

TEST(MappedOutput, OnlyTheMappedOutputIsShared) {
  MOTE_REQUIRE_VULKAN();
  if (!unified_memory()) GTEST_SKIP() << "outputs go through staging on this device";
  auto model = two_segment_model();
  auto session = prepared_two_segment_session(model);
  ASSERT_TRUE(session);
  auto second = session->mapped_output("second");
  ASSERT_TRUE(second.ok()) << second.status().to_string();
  Tensor x1 = random_tensor(DType::F32, {256, 64}, 4), x2 = random_tensor(DType::F32, {256, 64}, 5);
  auto out1 = session->run(std::vector<Tensor>{x1});
  ASSERT_TRUE(out1.ok());
  auto out2 = session->run(std::vector<Tensor>{x2});
  ASSERT_TRUE(out2.ok());
  // The unmapped output of the first run is the caller's own; the mapped one
  // holds the second run's values.
  expect_tensors_near(out1->at(0), run_on_cpu(model, {x1})[0], 1e-5, 1e-6, "first of run 1");
  expect_tensors_near(out1->at(1), run_on_cpu(model, {x2})[1], 1e-5, 1e-6, "second of run 1, overwritten");
  EXPECT_NE(out1->at(0).raw(), out2->at(0).raw());
}

// next = tanh(sigmoid(x * w + b) * h + b), the Sigmoid forced to the CPU in
// the tests: h is first read in the second segment, after the first one's
// intermediates may have taken the bytes `next` is written to.
std::shared_ptr<const Model> recurrent_model() {
  GraphBuilder g;
  int x = g.add_input("x", DType::F32, {64, 64});
  int h = g.add_input("h", DType::F32, {64, 64});
  int w = g.add_constant("w", random_tensor(DType::F32, {64}, 31));
  int b = g.add_constant("b", random_tensor(DType::F32, {64}, 32));
  int q = g.add_op(fb::OpType::Add, {g.add_op(fb::OpType::Mul, {x, w}, 1, "mul0")[0], b}, 1, "add0")[0];
  int r = g.add_op(fb::OpType::Sigmoid, {q}, 1, "sigmoid")[0];
  int a = g.add_op(fb::OpType::Add, {g.add_op(fb::OpType::Mul, {r, h}, 1, "mul1")[0], b}, 1, "add1")[0];
  g.mark_output(g.add_op(fb::OpType::Tanh, {a}, 1, "tanh")[0], "next");
  return load_built(g, "recurrent.mote");
}

// Feeds `next` back as h for four runs, against the CPU backend.
void run_recurrence(const std::shared_ptr<const Model>& model, const SessionOptions& options, double tolerance) {
  auto created = Session::create(model, options);
  ASSERT_TRUE(created.ok());
  std::unique_ptr<Session> session = std::move(created).value();
  ASSERT_TRUE(session->prepare().ok());
  auto next = session->mapped_output("next");
  ASSERT_TRUE(next.ok()) << next.status().to_string();
  const Tensor x = random_tensor(DType::F32, {64, 64}, 34);
  Tensor state = random_tensor(DType::F32, {64, 64}, 33);
  Tensor want = state.clone();
  for (int step = 0; step < 4; ++step) {
    auto out = session->run(std::vector<Tensor>{x, state});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    ASSERT_EQ(out->at(0).raw(), next->raw());
    want = run_on_cpu(model, {x, want})[0];
    expect_tensors_near(out->at(0), want, tolerance, tolerance, "state after step " + std::to_string(step));
    state = out->at(0);  // the view itself
  }
}

TEST(MappedOutput, PassedBackAsTheNextInput) {
  MOTE_REQUIRE_VULKAN();
  if (!unified_memory()) GTEST_SKIP() << "outputs go through staging on this device";
  run_recurrence(recurrent_model(), gpu_options({"sigmoid"}), 1e-5);
}

TEST(MappedOutput, PassedBackAsAnF16Input) {
  MOTE_REQUIRE_VULKAN();
  if (!unified_memory() || !device_has_fp16_storage()) GTEST_SKIP() << "no f16 storage or no unified memory";
  // h is stored as f16 (its reader is f16), `next` as f32 (Tanh kept f32):
  // the view is converted on the way in even where it shares h's bytes.
  SessionOptions o = gpu_options({"sigmoid"});
  o.gpu_precision = GpuPrecision::kF16Storage;
  o.gpu_f32_ops = {"tanh"};
  run_recurrence(recurrent_model(), o, 1e-2);
}

TEST(MappedOutput, AnInputViewTakenBeforeIsCopiedAfterTheReplan) {
  MOTE_REQUIRE_VULKAN();
  if (!unified_memory()) GTEST_SKIP() << "outputs go through staging on this device";
  auto model = recurrent_model();
  auto created = Session::create(model, gpu_options({"sigmoid"}));
  ASSERT_TRUE(created.ok());
  std::unique_ptr<Session> session = std::move(created).value();
  ASSERT_TRUE(session->prepare().ok());
  auto old_view = session->mapped_input("x");
  ASSERT_TRUE(old_view.ok()) << old_view.status().to_string();
  // Mapping the output plans again: the input view is the old plan's memory
  // now, which run() copies like any host input.
  ASSERT_TRUE(session->mapped_output("next").ok());
  const Tensor x = random_tensor(DType::F32, {64, 64}, 41), h = random_tensor(DType::F32, {64, 64}, 42);
  std::copy(x.data<float>(), x.data<float>() + x.numel(), old_view->data<float>());
  auto out = session->run(std::vector<Tensor>{*old_view, h});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  expect_tensors_near(out->at(0), run_on_cpu(model, {x, h})[0], 1e-5, 1e-6, "next");
  // A fresh view is the new plan's, written in place.
  auto view = session->mapped_input("x");
  ASSERT_TRUE(view.ok());
  EXPECT_NE(view->raw(), old_view->raw());
}

TEST(MappedOutput, OnlyOutputsReadInPlaceKeepTheirBytes) {
  MOTE_REQUIRE_VULKAN();
  if (!unified_memory()) GTEST_SKIP() << "outputs go through staging on this device";
  auto model = two_segment_model();
  auto session = prepared_two_segment_session(model);
  ASSERT_TRUE(session);
  const uint64_t shared = session->plan_stats().device_arena_bytes;
  // `first` is made early; kept for the caller, the second segment's
  // intermediates cannot reuse its bytes.
  ASSERT_TRUE(session->mapped_output("first").ok());
  EXPECT_GT(session->plan_stats().device_arena_bytes, shared);
  // A plan for the same session later (here: after mapping a second output)
  // still keeps the first and hands out its own views.
  ASSERT_TRUE(session->mapped_output("second").ok());
  Tensor x = random_tensor(DType::F32, {256, 64}, 7);
  auto out = session->run(std::vector<Tensor>{x});
  ASSERT_TRUE(out.ok());
  auto first = session->mapped_output("first");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(out->at(0).raw(), first->raw());
  expect_tensors_near(out->at(0), run_on_cpu(model, {x})[0], 1e-5, 1e-6, "first");
}

TEST(MappedOutput, SaysWhyNot) {
  MOTE_REQUIRE_VULKAN();
  auto model = two_segment_model();
  auto created = Session::create(model, gpu_options({"sigmoid"}));
  ASSERT_TRUE(created.ok());
  std::unique_ptr<Session> session = std::move(created).value();
  EXPECT_EQ(session->mapped_output("first").status().code(), StatusCode::kInvalidArgument);  // not prepared
  ASSERT_TRUE(session->prepare().ok());
  auto unknown = session->mapped_output("x");  // an input, not an output
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("no output named 'x'"), std::string::npos) << unknown.status().message();

  auto cpu = Session::create(model, SessionOptions{});
  ASSERT_TRUE(cpu.ok());
  ASSERT_TRUE((*cpu)->prepare().ok());
  auto on_cpu = (*cpu)->mapped_output("first");
  EXPECT_EQ(on_cpu.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(on_cpu.status().message().find("two_segments.mote: output 'first' cannot be read in place"),
            std::string::npos)
      << on_cpu.status().message();
  if (!unified_memory()) return;

  // Made by a CPU op: nothing on the GPU to read.
  auto cpu_maker = Session::create(model, gpu_options({"sigmoid", "relu2"}));
  ASSERT_TRUE(cpu_maker.ok());
  ASSERT_TRUE((*cpu_maker)->prepare().ok());
  auto made_on_cpu = (*cpu_maker)->mapped_output("second");
  EXPECT_EQ(made_on_cpu.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(made_on_cpu.status().message().find("no GPU op makes it"), std::string::npos)
      << made_on_cpu.status().message();

  if (!device_has_fp16_storage()) return;
  SessionOptions f16 = gpu_options({"sigmoid"});
  f16.gpu_precision = GpuPrecision::kF16Storage;
  auto half = Session::create(model, f16);
  ASSERT_TRUE(half.ok());
  ASSERT_TRUE((*half)->prepare().ok());
  auto stored_f16 = (*half)->mapped_output("second");
  EXPECT_EQ(stored_f16.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(stored_f16.status().message().find("f16"), std::string::npos) << stored_f16.status().message();
}

}  // namespace
}  // namespace mote::test
