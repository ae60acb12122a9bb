// The caller's own memory as a graph input or output (Session::import_input,
// import_output, VK_EXT_external_memory_host): the GPU reads the input and
// writes the outputs there, results match the CPU backend run after run, an
// output in the caller's memory also feeds later GPU and CPU ops, the arena
// no longer holds those tensors, and misaligned or short memory, CPU
// sessions and other shapes are handled with errors that say why. The same
// cases run through staging (vulkan_placement_staging), the path of discrete
// GPUs, where the GPU reads and writes host memory over the bus.
#include <cstdlib>
#include <cstring>

#include "mote/mote.h"
#include "runtime/vulkan/device.hpp"
#include "runtime/vulkan/faults.hpp"
#include "tests/support/model_util.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

// Memory as a caller would allocate it for import: `alignment`-aligned, its
// size rounded up to a multiple of it.
class AlignedMemory {
 public:
  AlignedMemory(size_t bytes, size_t alignment) : bytes_((bytes + alignment - 1) / alignment * alignment) {
    data_ = std::aligned_alloc(alignment, bytes_);
    std::memset(data_, 0, bytes_);
  }
  ~AlignedMemory() { std::free(data_); }
  AlignedMemory(const AlignedMemory&) = delete;
  AlignedMemory& operator=(const AlignedMemory&) = delete;
  void* data() const { return data_; }
  float* floats() const { return static_cast<float*>(data_); }
  size_t bytes() const { return bytes_; }

 private:
  size_t bytes_;
  void* data_;
};

uint64_t import_alignment_of_device() {
  auto device = vk::Device::get();
  return device.ok() ? (*device)->features().host_import_alignment : 0;
}

#define MOTE_REQUIRE_IMPORT() \
  MOTE_REQUIRE_VULKAN();      \
  if (!import_alignment_of_device()) GTEST_SKIP() << "the Vulkan device lacks VK_EXT_external_memory_host"

SessionOptions gpu_options(std::vector<std::string> cpu_ops = {}) {
  SessionOptions o;
  o.backend = Backend::kVulkan;
  o.min_gpu_island_elements = 0;
  o.cpu_ops = std::move(cpu_ops);
  return o;
}

// first = relu(x * c), made by the first GPU segment and read by a CPU
// Sigmoid and by a GPU Mul; second = relu(sigmoid(first) * c + first), made
// by a second segment. `rows` may be -1 (dynamic).
GraphBuilder two_segment_builder(int64_t rows) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {rows, 64});
  int c = b.add_constant("c", random_tensor(DType::F32, {64}, 21));
  int first = b.add_op(fb::OpType::Relu, {b.add_op(fb::OpType::Mul, {x, c}, 1, "mul")[0]}, 1, "relu")[0];
  int s = b.add_op(fb::OpType::Sigmoid, {first}, 1, "sigmoid")[0];
  int t = b.add_op(fb::OpType::Mul, {s, c}, 1, "mul2")[0];
  int u = b.add_op(fb::OpType::Add, {t, first}, 1, "add2")[0];
  b.mark_output(first, "first");
  b.mark_output(b.add_op(fb::OpType::Relu, {u}, 1, "relu2")[0], "second");
  return b;
}

// A run of two_segment_builder(256)'s session on a fresh host input: its
// `second` output against the CPU backend's.
void expect_second_output_matches_cpu(Session& session, const std::shared_ptr<const Model>& model, uint32_t seed) {
  Tensor x = random_tensor(DType::F32, {256, 64}, seed);
  auto out = session.run(std::vector<Tensor>{x});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  expect_tensors_near(out->at(1), run_on_cpu(model, {x})[1], 1e-5, 1e-6, "second");
}

std::unique_ptr<Session> prepared_session(const std::shared_ptr<const Model>& model, SessionOptions options) {
  auto session = Session::create(model, std::move(options));
  EXPECT_TRUE(session.ok() && (*session)->prepare().ok());
  return session.ok() ? std::move(session).value() : nullptr;
}

TEST(CallerMemory, InputAndOutputsLiveThereAndMatchCpu) {
  MOTE_REQUIRE_IMPORT();
  // The memory outlives the session, as the API asks.
  const size_t bytes = 256 * 64 * sizeof(float), alignment = import_alignment_of_device();
  AlignedMemory x_memory(bytes, alignment), first_memory(bytes, alignment), second_memory(bytes, alignment);
  auto model = load_built(two_segment_builder(256), "two_segments.mote");
  auto session = prepared_session(model, gpu_options({"sigmoid"}));
  ASSERT_TRUE(session);
  ASSERT_GE(session->plan_stats().gpu_segments, 2);
  const uint64_t arena_before = session->plan_stats().device_arena_bytes;
  ASSERT_EQ(session->import_alignment(), alignment);
  auto x = session->import_input("x", x_memory.data(), x_memory.bytes());
  ASSERT_TRUE(x.ok()) << x.status().to_string();
  ASSERT_EQ(x->raw(), x_memory.data());
  ASSERT_EQ(x->shape(), (Shape{256, 64}));
  auto first = session->import_output("first", first_memory.data(), first_memory.bytes());
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  auto second = session->import_output("second", second_memory.data(), second_memory.bytes());
  ASSERT_TRUE(second.ok()) << second.status().to_string();
  // Three tensors of 64 KiB left the arena, whose peak held at least x or first.
  EXPECT_LT(session->plan_stats().device_arena_bytes, arena_before);

  for (uint32_t seed : {1u, 2u, 3u}) {
    const std::string label = "seed " + std::to_string(seed);
    Tensor host_x = random_tensor(DType::F32, {256, 64}, seed);
    std::memcpy(x_memory.data(), host_x.raw(), bytes);
    auto out = session->run(std::vector<Tensor>{*x});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    EXPECT_EQ(out->at(0).raw(), first_memory.data()) << label;
    EXPECT_EQ(out->at(1).raw(), second_memory.data()) << label;
    std::vector<Tensor> want = run_on_cpu(model, {host_x});
    expect_tensors_near(out->at(0), want[0], 1e-5, 1e-6, "first, " + label);
    expect_tensors_near(out->at(1), want[1], 1e-5, 1e-6, "second, " + label);
    expect_tensors_near(*x, host_x, 0, 0, "x after the run, " + label);
  }
  // Another Tensor for x is copied into the caller's memory, where the GPU
  // reads it.
  Tensor other = random_tensor(DType::F32, {256, 64}, 4);
  auto out = session->run(std::vector<Tensor>{other});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  expect_tensors_near(*x, other, 0, 0, "x's memory after a run given another tensor");
  expect_tensors_near(out->at(1), run_on_cpu(model, {other})[1], 1e-5, 1e-6, "second from another tensor");
}

TEST(CallerMemory, OutputFeedsLaterGpuOpsInTheSameSegment) {
  MOTE_REQUIRE_IMPORT();
  // All on the GPU: first is written to the caller's memory and read back
  // by add2 in the same command buffer.
  AlignedMemory first_memory(128 * 64 * sizeof(float), import_alignment_of_device());
  auto model = load_built(two_segment_builder(128), "one_segment.mote");
  auto session = prepared_session(model, gpu_options());
  ASSERT_TRUE(session);
  ASSERT_TRUE(session->import_output("first", first_memory.data(), first_memory.bytes()).ok());
  ASSERT_EQ(session->plan_stats().gpu_segments, 1);
  for (uint32_t seed : {5u, 6u}) {
    Tensor x = random_tensor(DType::F32, {128, 64}, seed);
    auto out = session->run(std::vector<Tensor>{x});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    ASSERT_EQ(out->at(0).raw(), first_memory.data());
    std::vector<Tensor> want = run_on_cpu(model, {x});
    expect_tensors_near(out->at(0), want[0], 1e-5, 1e-6, "first");
    expect_tensors_near(out->at(1), want[1], 1e-5, 1e-6, "second");
  }
}

TEST(CallerMemory, MisalignedOrShortMemoryIsRefusedByName) {
  MOTE_REQUIRE_IMPORT();
  const size_t alignment = import_alignment_of_device();
  AlignedMemory memory(256 * 64 * sizeof(float) + alignment, alignment), other(256 * 64 * sizeof(float), alignment);
  auto model = load_built(two_segment_builder(256), "two_segments.mote");
  auto session = prepared_session(model, gpu_options({"sigmoid"}));
  ASSERT_TRUE(session);
  auto misaligned = session->import_input("x", static_cast<char*>(memory.data()) + 4, memory.bytes() - alignment);
  ASSERT_EQ(misaligned.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(misaligned.status().message().find("input 'x'"), std::string::npos) << misaligned.status().message();
  EXPECT_NE(misaligned.status().message().find(std::to_string(alignment)), std::string::npos);
  auto short_memory = session->import_output("first", memory.data(), alignment);
  ASSERT_EQ(short_memory.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(short_memory.status().message().find("output 'first'"), std::string::npos);
  EXPECT_EQ(session->import_input("nope", memory.data(), memory.bytes()).status().code(), StatusCode::kNotFound);
  // Two tensors may not share bytes.
  ASSERT_TRUE(session->import_output("first", other.data(), other.bytes()).ok());
  auto overlapping = session->import_output("second", other.data(), other.bytes());
  ASSERT_EQ(overlapping.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(overlapping.status().message().find("overlaps that of output 'first'"), std::string::npos)
      << overlapping.status().message();
  // The session runs as before.
  expect_second_output_matches_cpu(*session, model, 7);
}

TEST(CallerMemory, CpuSessionsAndCpuOutputsSayWhy) {
  MOTE_REQUIRE_IMPORT();
  AlignedMemory memory(256 * 64 * sizeof(float), import_alignment_of_device());
  auto model = load_built(two_segment_builder(256), "two_segments.mote");
  SessionOptions cpu;
  cpu.backend = Backend::kCpu;
  auto cpu_session = prepared_session(model, cpu);
  ASSERT_TRUE(cpu_session);
  EXPECT_EQ(cpu_session->import_alignment(), 0u);
  auto refused = cpu_session->import_input("x", memory.data(), memory.bytes());
  ASSERT_EQ(refused.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(refused.status().message().find("no op on the GPU"), std::string::npos) << refused.status().message();
  // second made by a CPU op.
  auto session = prepared_session(model, gpu_options({"relu2"}));
  ASSERT_TRUE(session);
  auto cpu_output = session->import_output("second", memory.data(), memory.bytes());
  ASSERT_EQ(cpu_output.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(cpu_output.status().message().find("no GPU op makes it"), std::string::npos)
      << cpu_output.status().message();
}

TEST(CallerMemory, OtherShapesForgetTheImportAndMappingReplacesIt) {
  MOTE_REQUIRE_IMPORT();
  const size_t alignment = import_alignment_of_device();
  AlignedMemory x_memory(64 * 64 * sizeof(float), alignment), second_memory(64 * 64 * sizeof(float), alignment);
  auto model = load_built(two_segment_builder(-1), "dynamic_rows.mote");
  auto session = Session::create(model, gpu_options({"sigmoid"}));
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->prepare({{"x", Shape{64, 64}}}).ok());
  auto x = (*session)->import_input("x", x_memory.data(), x_memory.bytes());
  ASSERT_TRUE(x.ok()) << x.status().to_string();
  ASSERT_TRUE((*session)->import_output("second", second_memory.data(), second_memory.bytes()).ok());
  Tensor small = random_tensor(DType::F32, {64, 64}, 8);
  std::memcpy(x_memory.data(), small.raw(), small.bytes());
  auto out = (*session)->run(std::vector<Tensor>{*x});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(out->at(1).raw(), second_memory.data());
  expect_tensors_near(out->at(1), run_on_cpu(model, {small})[1], 1e-5, 1e-6, "second, 64 rows");
  // 96 rows would not fit: the plan for them forgets both imports.
  Tensor large = random_tensor(DType::F32, {96, 64}, 9);
  out = (*session)->run(std::vector<Tensor>{large});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_NE(out->at(1).raw(), second_memory.data());
  expect_tensors_near(out->at(1), run_on_cpu(model, {large})[1], 1e-5, 1e-6, "second, 96 rows");
  // Back to 64 rows: still forgotten; the caller's tensor is copied.
  out = (*session)->run(std::vector<Tensor>{small});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_NE(out->at(1).raw(), second_memory.data());
  expect_tensors_near(out->at(1), run_on_cpu(model, {small})[1], 1e-5, 1e-6, "second, 64 rows again");
  // Imported again, then mapped: the device's own bytes replace the caller's.
  ASSERT_TRUE((*session)->import_output("second", second_memory.data(), second_memory.bytes()).ok());
  auto mapped = (*session)->mapped_output("second");
  if (!mapped.ok()) {
    EXPECT_EQ(mapped.status().code(), StatusCode::kUnsupported) << mapped.status().to_string();
    return;  // staging: no mapped views
  }
  out = (*session)->run(std::vector<Tensor>{small});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(out->at(1).raw(), mapped->raw());
  EXPECT_NE(out->at(1).raw(), second_memory.data());
  expect_tensors_near(out->at(1), run_on_cpu(model, {small})[1], 1e-5, 1e-6, "second, mapped after imported");
}

// first = relu(x * c) on the GPU; second = first + x on the CPU, which
// reads x after the GPU has written first.
std::shared_ptr<const Model> recurrent_model() {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {256, 64});
  int c = b.add_constant("c", random_tensor(DType::F32, {64}, 31));
  int first = b.add_op(fb::OpType::Relu, {b.add_op(fb::OpType::Mul, {x, c}, 1, "mul")[0]}, 1, "relu")[0];
  b.mark_output(first, "first");
  b.mark_output(b.add_op(fb::OpType::Add, {first, x}, 1, "residual")[0], "second");
  return load_built(b, "recurrent.mote");
}

TEST(CallerMemory, AnOutputPassedBackAsTheNextInputIsReadBeforeItIsOverwritten) {
  MOTE_REQUIRE_IMPORT();
  AlignedMemory first_memory(256 * 64 * sizeof(float), import_alignment_of_device());
  auto model = recurrent_model();
  auto session = prepared_session(model, gpu_options({"residual"}));
  ASSERT_TRUE(session);
  ASSERT_TRUE(session->import_output("first", first_memory.data(), first_memory.bytes()).ok());
  Tensor state = random_tensor(DType::F32, {256, 64}, 13);
  for (int step = 0; step < 3; ++step) {
    const std::vector<Tensor> want = run_on_cpu(model, {state.clone()});
    auto out = session->run(std::vector<Tensor>{state});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    ASSERT_EQ(out->at(0).raw(), first_memory.data());
    expect_tensors_near(out->at(0), want[0], 1e-5, 1e-6, "first, step " + std::to_string(step));
    expect_tensors_near(out->at(1), want[1], 1e-5, 1e-6, "second, step " + std::to_string(step));
    state = out->at(0);  // the next input is this output, in the caller's memory
  }
}

// An input given as a view of another input's caller memory is read before
// that input's upload overwrites it (the run was given another Tensor for
// the imported input).
TEST(CallerMemory, AnInputInsideAnotherInputsMemoryIsReadBeforeTheUpload) {
  MOTE_REQUIRE_IMPORT();
  AlignedMemory a_memory(256 * 64 * sizeof(float), import_alignment_of_device());
  GraphBuilder g;
  int a = g.add_input("a", DType::F32, {256, 64});
  int b = g.add_input("b", DType::F32, {256, 64});
  int c = g.add_constant("c", random_tensor(DType::F32, {64}, 41));
  int scaled = g.add_op(fb::OpType::Relu, {g.add_op(fb::OpType::Mul, {a, c}, 1, "mul")[0]}, 1, "relu")[0];
  g.mark_output(g.add_op(fb::OpType::Add, {scaled, b}, 1, "add")[0], "y");
  auto model = load_built(g, "two_inputs.mote");
  auto session = prepared_session(model, gpu_options());
  ASSERT_TRUE(session);
  auto a_view = session->import_input("a", a_memory.data(), a_memory.bytes());
  ASSERT_TRUE(a_view.ok()) << a_view.status().to_string();
  Tensor old_a = random_tensor(DType::F32, {256, 64}, 42);
  std::memcpy(a_memory.data(), old_a.raw(), old_a.bytes());
  Tensor new_a = random_tensor(DType::F32, {256, 64}, 43);
  // b is the caller's memory of a as it was when run() was called.
  auto out = session->run(std::vector<Tensor>{new_a, *a_view});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  expect_tensors_near(out->at(0), run_on_cpu(model, {new_a, old_a})[0], 1e-5, 1e-6, "y");
  expect_tensors_near(*a_view, new_a, 0, 0, "a's memory after the run");
}

TEST(CallerMemory, F16StorageKeepsAnImportedInputF32) {
  MOTE_REQUIRE_IMPORT();
  if (!device_has_fp16_storage()) GTEST_SKIP() << "no f16 storage";
  AlignedMemory x_memory(256 * 64 * sizeof(float), import_alignment_of_device());
  auto model = load_built(two_segment_builder(256), "two_segments.mote");
  SessionOptions options = gpu_options({"sigmoid"});
  options.gpu_precision = GpuPrecision::kF16Storage;
  auto session = prepared_session(model, options);
  ASSERT_TRUE(session);
  auto x = session->import_input("x", x_memory.data(), x_memory.bytes());
  ASSERT_TRUE(x.ok()) << x.status().to_string();
  Tensor host_x = random_tensor(DType::F32, {256, 64}, 14);
  std::memcpy(x_memory.data(), host_x.raw(), host_x.bytes());
  auto out = session->run(std::vector<Tensor>{*x});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  // f16 storage of the intermediates: relative error of a few 1e-3.
  expect_tensors_near(out->at(1), run_on_cpu(model, {host_x})[1], 1e-2, 1e-2, "second with f16 storage");
  expect_tensors_near(*x, host_x, 0, 0, "x after the run");
}

class CallerMemoryFaults : public ::testing::Test {
 protected:
  void TearDown() override { vk::reset_injected_faults(); }
};

TEST_F(CallerMemoryFaults, ALostDeviceFinishesOnTheCpuFromTheImportedInput) {
  MOTE_REQUIRE_IMPORT();
  AlignedMemory x_memory(256 * 64 * sizeof(float), import_alignment_of_device());
  AlignedMemory first_memory(256 * 64 * sizeof(float), import_alignment_of_device());
  auto model = recurrent_model();
  auto session = prepared_session(model, gpu_options({"residual"}));
  ASSERT_TRUE(session);
  auto x = session->import_input("x", x_memory.data(), x_memory.bytes());
  ASSERT_TRUE(x.ok()) << x.status().to_string();
  ASSERT_TRUE(session->import_output("first", first_memory.data(), first_memory.bytes()).ok());
  Tensor host_x = random_tensor(DType::F32, {256, 64}, 15);
  std::memcpy(x_memory.data(), host_x.raw(), host_x.bytes());
  auto first_run = session->run(std::vector<Tensor>{*x});
  ASSERT_TRUE(first_run.ok()) << first_run.status().to_string();
  vk::arm_fault(vk::Fault::kDeviceLost);
  auto out = session->run(std::vector<Tensor>{*x});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_FALSE(session->plan_stats().gpu_fault.empty());
  const std::vector<Tensor> want = run_on_cpu(model, {host_x});
  expect_tensors_near(out->at(0), want[0], 1e-5, 1e-6, "first on the CPU");
  expect_tensors_near(out->at(1), want[1], 1e-5, 1e-6, "second on the CPU");
}

TEST_F(CallerMemoryFaults, ALostDeviceWithAnImportedOutputAsInputIsAnError) {
  MOTE_REQUIRE_IMPORT();
  AlignedMemory first_memory(256 * 64 * sizeof(float), import_alignment_of_device());
  auto model = recurrent_model();
  auto session = prepared_session(model, gpu_options({"residual"}));
  ASSERT_TRUE(session);
  ASSERT_TRUE(session->import_output("first", first_memory.data(), first_memory.bytes()).ok());
  auto out = session->run(std::vector<Tensor>{random_tensor(DType::F32, {256, 64}, 16)});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  vk::arm_fault(vk::Fault::kDeviceLost);
  auto lost = session->run(std::vector<Tensor>{out->at(0)});
  ASSERT_EQ(lost.status().code(), StatusCode::kGpuFault) << lost.status().to_string();
  EXPECT_NE(lost.status().message().find("input 'x'"), std::string::npos) << lost.status().message();
}

// Run by CTest with MOTE_VK_DISABLE=import (vulkan_without_import).
TEST(CallerMemory, WithoutTheExtensionSaysWhy) {
  MOTE_REQUIRE_VULKAN();
  if (import_alignment_of_device()) GTEST_SKIP() << "the device imports host memory";
  AlignedMemory memory(256 * 64 * sizeof(float), 4096);
  auto model = load_built(two_segment_builder(256), "two_segments.mote");
  auto session = prepared_session(model, gpu_options());
  ASSERT_TRUE(session);
  EXPECT_EQ(session->import_alignment(), 0u);
  auto refused = session->import_output("second", memory.data(), memory.bytes());
  ASSERT_EQ(refused.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(refused.status().message().find("VK_EXT_external_memory_host"), std::string::npos)
      << refused.status().message();
  expect_second_output_matches_cpu(*session, model, 12);
}

TEST(CallerMemory, CApi) {
  MOTE_REQUIRE_IMPORT();
  const size_t device_alignment = import_alignment_of_device();
  AlignedMemory x_memory(256 * 64 * sizeof(float), device_alignment);
  AlignedMemory out_memory(256 * 64 * sizeof(float), device_alignment);
  auto bytes = two_segment_builder(256).serialize();
  ASSERT_TRUE(bytes.ok());
  mote_model* model = nullptr;
  ASSERT_EQ(mote_model_load_buffer(bytes->data(), bytes->size(), &model), MOTE_OK) << mote_last_error();
  mote_session_options options;
  ASSERT_EQ(mote_session_options_init(&options), MOTE_OK);
  options.backend = "vulkan";
  mote_session* session = nullptr;
  ASSERT_EQ(mote_session_create(model, &options, &session), MOTE_OK) << mote_last_error();
  ASSERT_EQ(mote_session_prepare(session), MOTE_OK) << mote_last_error();
  size_t alignment = 0;
  ASSERT_EQ(mote_session_import_alignment(session, &alignment), MOTE_OK);
  ASSERT_EQ(alignment, device_alignment);
  mote_tensor* x = nullptr;
  mote_tensor* second = nullptr;
  ASSERT_EQ(mote_session_import_input(session, 0, x_memory.data(), x_memory.bytes(), &x), MOTE_OK)
      << mote_last_error();
  ASSERT_EQ(mote_session_import_output(session, 1, out_memory.data(), out_memory.bytes(), &second), MOTE_OK)
      << mote_last_error();
  EXPECT_EQ(mote_session_import_input(session, 0, static_cast<char*>(x_memory.data()) + 64, alignment, &x),
            MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_session_import_output(session, 2, out_memory.data(), out_memory.bytes(), &second),
            MOTE_INVALID_ARGUMENT);
  Tensor host_x = random_tensor(DType::F32, {256, 64}, 10);
  std::memcpy(x_memory.data(), host_x.raw(), host_x.bytes());
  mote_tensor* outputs[2] = {nullptr, nullptr};
  ASSERT_EQ(mote_session_run(session, &x, 1, outputs, 2), MOTE_OK) << mote_last_error();
  const void* data = nullptr;
  ASSERT_EQ(mote_tensor_data(outputs[1], &data), MOTE_OK);
  EXPECT_EQ(data, out_memory.data());
  Tensor got = Tensor::borrow(DType::F32, {256, 64}, data);
  expect_tensors_near(got, run_on_cpu(load_built(two_segment_builder(256)), {host_x})[1], 1e-5, 1e-6, "second");
  for (mote_tensor* t : {outputs[0], outputs[1], x, second}) mote_tensor_release(t);
  mote_session_release(session);
  mote_model_release(model);
}

}  // namespace
}  // namespace mote::test
