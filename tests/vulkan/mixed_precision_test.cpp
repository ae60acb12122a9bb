// Mixed storage precision on the GPU: f16 sessions keeping some ops f32
// (SessionOptions::gpu_f32_ops), the conversions the program inserts where
// the two meet (storage_precision.hpp), and choose_gpu_precision's rules and
// choices. Results are checked against the CPU backend.
#include <cmath>

#include "mote/gpu.hpp"
#include "runtime/core/gpu_precision.hpp"
#include "runtime/vulkan/kernels/cast_kinds.hpp"
#include "runtime/vulkan/storage_precision.hpp"
#include "tests/support/model_util.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

Tensor filled(Shape shape, float value) {
  Tensor t = Tensor::zeros(DType::F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = value;
  return t;
}

// y = sigmoid(((x * 1e5) + c) * 1e-5): the two middle tensors pass f16's
// range. w = -x + c: reads the graph input and the weight c, in f16.
std::shared_ptr<const Model> overflow_model(int64_t n) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {n, 8});
  int c = b.add_constant("c", random_tensor(DType::F32, {8}, 5));
  int up = b.add_op(fb::OpType::Mul, {x, b.add_constant("big", filled({1}, 1e5f))}, 1, "scale_up")[0];
  int shift = b.add_op(fb::OpType::Add, {up, c}, 1, "shift")[0];
  int down = b.add_op(fb::OpType::Mul, {shift, b.add_constant("small", filled({1}, 1e-5f))}, 1, "scale_down")[0];
  b.mark_output(b.add_op(fb::OpType::Sigmoid, {down}, 1, "act")[0], "y");
  int neg = b.add_op(fb::OpType::Neg, {x}, 1, "neg")[0];
  b.mark_output(b.add_op(fb::OpType::Add, {neg, c}, 1, "add_c")[0], "w");
  return load_built(b, "overflow.mote");
}

// y = tanh(((x + 1000) - 1000) * 3): storing x + 1000 in f16 keeps it to
// 0.5, so the subtraction gives x back with ~10 % error.
std::shared_ptr<const Model> cancellation_model(int64_t n) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {n, 8});
  int k = b.add_constant("thousand", filled({1}, 1000.f));
  int lifted = b.add_op(fb::OpType::Add, {x, k}, 1, "lift")[0];
  int back = b.add_op(fb::OpType::Sub, {lifted, k}, 1, "unlift")[0];
  int scaled = b.add_op(fb::OpType::Mul, {back, b.add_constant("three", filled({1}, 3.f))}, 1, "scale")[0];
  b.mark_output(b.add_op(fb::OpType::Tanh, {scaled}, 1, "tanh")[0], "y");
  return load_built(b, "cancellation.mote");
}

SessionOptions f16_options(std::vector<std::string> f32_ops = {}) {
  SessionOptions o;
  o.backend = Backend::kVulkan;
  o.min_gpu_island_elements = 0;
  o.gpu_precision = GpuPrecision::kF16Storage;
  o.gpu_f32_ops = std::move(f32_ops);
  return o;
}

std::string precision_of(const Session& s, const std::string& name) {
  for (const OpPlacement& p : s.placement()) {
    if (p.op.find("'" + name + "'") != std::string::npos) return p.device + " " + p.precision;
  }
  return "missing";
}

bool all_finite(const Tensor& t) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (!std::isfinite(t.data<float>()[i])) return false;
  }
  return true;
}

TEST(MixedPrecision, AllF16OverflowsWhereF32OpsDoNot) {
  MOTE_REQUIRE_VULKAN();
  if (!device_has_fp16_storage() || !device_has_half_conversions()) GTEST_SKIP() << "no f16 storage";
  auto model = overflow_model(33);
  Tensor x = random_tensor(DType::F32, {33, 8}, 1);
  std::vector<Tensor> cpu = run_on_cpu(model, {x});

  // Everything f16: 1e5 * x is stored as infinity and y saturates.
  auto all16 = Session::create(model, f16_options());
  ASSERT_TRUE(all16.ok());
  auto bad = (*all16)->run(std::vector<Tensor>{x});
  ASSERT_TRUE(bad.ok()) << bad.status().to_string();
  double worst = 0;
  for (int64_t i = 0; i < cpu[0].numel(); ++i) {
    worst = std::max(worst, std::fabs(double(bad->at(0).data<float>()[i]) - cpu[0].data<float>()[i]));
  }
  EXPECT_GT(worst, 0.1) << "the f16 overflow this test is built around did not happen";

  // The three ops handling large values f32: both outputs match the CPU.
  auto mixed = Session::create(model, f16_options({"scale_up", "shift", "scale_down"}));
  ASSERT_TRUE(mixed.ok());
  auto good = (*mixed)->run(std::vector<Tensor>{x});
  ASSERT_TRUE(good.ok()) << good.status().to_string();
  expect_tensors_near(good->at(0), cpu[0], 2e-3, 2e-3, "y");
  expect_tensors_near(good->at(1), cpu[1], 2e-3, 2e-3, "w");
  const Session& s = **mixed;
  EXPECT_EQ(precision_of(s, "scale_up"), "vulkan f32");
  EXPECT_EQ(precision_of(s, "shift"), "vulkan f32");
  EXPECT_EQ(precision_of(s, "scale_down"), "vulkan f32");
  EXPECT_EQ(precision_of(s, "act"), "vulkan f16");
  EXPECT_EQ(precision_of(s, "neg"), "vulkan f16");
  EXPECT_EQ(precision_of(s, "add_c"), "vulkan f16");
  // scale_down's output converted for act; x (uploaded f32 for scale_up)
  // converted for neg. The weight c is uploaded in both precisions instead.
  EXPECT_NE(s.plan_stats().gpu_precision.find("3 f32 (gpu_f32_ops), 2 conversions"), std::string::npos)
      << s.plan_stats().gpu_precision;
  // A second run reuses the recorded conversions.
  auto again = (*mixed)->run(std::vector<Tensor>{random_tensor(DType::F32, {33, 8}, 2)});
  ASSERT_TRUE(again.ok());
  expect_tensors_near(again->at(0), run_on_cpu(model, {random_tensor(DType::F32, {33, 8}, 2)})[0], 2e-3, 2e-3,
                      "y, run 2");
}

TEST(MixedPrecision, ByOpType) {
  MOTE_REQUIRE_VULKAN();
  if (!device_has_fp16_storage() || !device_has_half_conversions()) GTEST_SKIP() << "no f16 storage";
  auto model = overflow_model(17);
  Tensor x = random_tensor(DType::F32, {17, 8}, 3);
  std::vector<Tensor> cpu = run_on_cpu(model, {x});
  // By type: both Muls and both Adds f32; Neg and Sigmoid f16.
  auto s = Session::create(model, f16_options({"Mul", "Add"}));
  ASSERT_TRUE(s.ok());
  auto out = (*s)->run(std::vector<Tensor>{x});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  expect_tensors_near(out->at(0), cpu[0], 2e-3, 2e-3, "y");
  expect_tensors_near(out->at(1), cpu[1], 2e-3, 2e-3, "w");
  EXPECT_EQ(precision_of(**s, "add_c"), "vulkan f32");
  EXPECT_EQ(precision_of(**s, "neg"), "vulkan f16");
  EXPECT_TRUE(all_finite(out->at(0)));
}

TEST(MixedPrecision, F32SessionIgnoresTheList) {
  MOTE_REQUIRE_VULKAN();
  auto model = overflow_model(9);
  SessionOptions o = f16_options({"scale_up"});
  o.gpu_precision = GpuPrecision::kF32;
  auto s = Session::create(model, o);
  ASSERT_TRUE(s.ok());
  Tensor x = random_tensor(DType::F32, {9, 8}, 4);
  auto out = (*s)->run(std::vector<Tensor>{x});
  ASSERT_TRUE(out.ok());
  expect_tensors_near(out->at(0), run_on_cpu(model, {x})[0], 1e-5, 1e-6, "y");
  EXPECT_EQ((*s)->plan_stats().gpu_precision, "f32");
  EXPECT_EQ(precision_of(**s, "neg"), "vulkan f32");
}

TEST(ChooseGpuPrecision, KeepsTheOpsPastF16Range) {
  MOTE_REQUIRE_VULKAN();
  if (!device_has_fp16_storage() || !device_has_half_conversions()) GTEST_SKIP() << "no f16 storage";
  auto model = overflow_model(33);
  GpuPrecisionOptions choose;
  choose.runs = 0;
  SessionOptions o;
  o.min_gpu_island_elements = 0;
  auto report = choose_gpu_precision(model, {random_tensor(DType::F32, {33, 8}, 1)}, o, choose);
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  EXPECT_TRUE(report->met);
  EXPECT_EQ(report->f32_ops, (std::vector<std::string>{"scale_down", "scale_up", "shift"}));
  EXPECT_TRUE(std::isinf(report->error_all_f16) || report->error_all_f16 > 0.1) << report->error_all_f16;
  EXPECT_LT(report->error_chosen, 1e-2);
  EXPECT_EQ(report->rounds, 1);
  int f16 = 0;
  for (const GpuOpPrecision& op : report->ops) f16 += op.precision == "f16" ? 1 : 0;
  EXPECT_EQ(f16, 3);  // act, neg, add_c
}

TEST(ChooseGpuPrecision, KeepsACancellationAndWhatFeedsIt) {
  MOTE_REQUIRE_VULKAN();
  if (!device_has_fp16_storage() || !device_has_half_conversions()) GTEST_SKIP() << "no f16 storage";
  auto model = cancellation_model(64);
  Tensor x = random_tensor(DType::F32, {64, 8}, 7);
  GpuPrecisionOptions choose;
  choose.runs = 0;
  choose.tolerance = 5e-3;
  SessionOptions o;
  o.min_gpu_island_elements = 0;
  auto report = choose_gpu_precision(model, {x}, o, choose);
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  EXPECT_GT(report->error_all_f16, 0.02);  // f16's step at 1000 is 0.5
  EXPECT_TRUE(report->met) << report->error_chosen;
  EXPECT_EQ(report->f32_ops, (std::vector<std::string>{"lift", "unlift"}));
  EXPECT_EQ(report->rounds, 2);
  // The chosen list reproduces the CPU's result in a session of its own.
  auto s = Session::create(model, f16_options(report->f32_ops));
  ASSERT_TRUE(s.ok());
  auto out = (*s)->run(std::vector<Tensor>{x});
  ASSERT_TRUE(out.ok());
  expect_tensors_near(out->at(0), run_on_cpu(model, {x})[0], 5e-3, 5e-3, "y");
}

// The rules on made-up measurements (no device).
TEST(GpuPrecisionRules, OutOfRangeTakesMakersAndReaders) {
  using namespace gpu_precision;
  std::vector<TensorMeasure> t(4);
  for (auto& m : t) m.measured = true, m.ref_max_abs = 10;
  t[1].ref_max_abs = 1e5;
  std::vector<OpMeasure> ops = {
      {0, true, true, {0}, {1}}, {1, true, true, {1}, {2}}, {2, true, true, {2}, {3}}, {3, false, false, {1}, {3}}};
  std::vector<Pick> picks = out_of_range(ops, t);
  ASSERT_EQ(picks.size(), 2u);  // op 3 is on the CPU: nothing to keep
  EXPECT_EQ(picks[0].op_index, 0);
  EXPECT_NE(picks[0].reason.find("makes values up to 1e+05"), std::string::npos) << picks[0].reason;
  EXPECT_EQ(picks[1].op_index, 1);
  EXPECT_NE(picks[1].reason.find("reads"), std::string::npos);
}

TEST(GpuPrecisionRules, GrowthAndAmplifiers) {
  using namespace gpu_precision;
  std::vector<TensorMeasure> t(5);
  for (auto& m : t) m.measured = true, m.error = kHalfRounding;
  t[2].error = 100 * kHalfRounding;  // op 1 grew its input's error 100x
  t[3].error = 120 * kHalfRounding;  // op 2 passed it on
  t[4].error = 3 * kHalfRounding;    // op 3: small growth
  std::vector<OpMeasure> ops = {
      {0, true, true, {0}, {1}}, {1, true, true, {1, -1}, {2}}, {2, true, true, {2}, {3}}, {3, true, true, {0}, {4}}};
  EXPECT_DOUBLE_EQ(growth(ops[1], t), 100);
  EXPECT_DOUBLE_EQ(growth(ops[2], t), 1.2);
  std::vector<Pick> picks = amplifiers(ops, t);
  ASSERT_EQ(picks.size(), 2u);
  EXPECT_EQ(picks[0].op_index, 1);
  EXPECT_EQ(picks[1].op_index, 0);  // makes op 1's input
  // A non-finite output from finite inputs is infinite growth; one from
  // non-finite inputs is passed on.
  t[2].error = INFINITY;
  EXPECT_TRUE(std::isinf(growth(ops[1], t)));
  t[3].error = INFINITY;
  EXPECT_DOUBLE_EQ(growth(ops[2], t), 1.0);
  // An op already f32, or on the CPU, is not picked, nor are its producers.
  t[2].error = 100 * kHalfRounding;
  t[3].error = 120 * kHalfRounding;
  ops[1].f16 = false;
  EXPECT_TRUE(amplifiers(ops, t).empty());
  ops[1].f16 = true;
  ops[1].on_gpu = false;
  EXPECT_TRUE(amplifiers(ops, t).empty());
  // Growth under kMinGrowth picks nothing.
  ops[1].on_gpu = true;
  t[2].error = 3 * kHalfRounding;
  t[3].error = 3 * kHalfRounding;
  EXPECT_TRUE(amplifiers(ops, t).empty());
}

TEST(StoragePrecision, TwinsAndConversions) {
  vk::DeviceFeatures features;
  float weight[4] = {1, 2, 3, 4};
  // 0 input, 1 weight, 2 a (f16 step 0), 3 b (f32 step 1), 4 c (f32 step 2), 5 d (f16 step 3), 6 i64 shape.
  std::vector<vk::ProgramTensor> tensors(7);
  for (auto& t : tensors) t.numel = 4;
  tensors[0].host_produced = true;
  tensors[1].constant = weight;
  tensors[6].dtype = DType::I64;
  auto step = [](int index, bool fp16, std::vector<int> in, std::vector<int> out) {
    vk::ProgramStep s;
    s.step = index;
    s.fp16 = fp16;
    s.label = "op " + std::to_string(index);
    s.inputs = std::move(in);
    s.outputs = std::move(out);
    vk::Dispatch d;
    for (size_t i = 0; i < s.inputs.size(); ++i) d.args.push_back({vk::TensorArg::kInput, static_cast<int>(i)});
    d.args.push_back({vk::TensorArg::kOutput, 0});
    s.dispatches.push_back(d);
    return s;
  };
  std::vector<vk::ProgramStep> steps = {step(0, true, {0, 1}, {2}), step(1, false, {2, 1}, {3}),
                                        step(2, false, {2, 0, 6}, {4}), step(3, true, {3, 4, 2}, {5})};
  vk::StoragePrecisionPlan plan = vk::assign_storage_precision(tensors, steps, features);
  EXPECT_EQ(plan.f16_steps, 2);
  EXPECT_EQ(plan.f32_steps, 2);
  // x -> f16 for step 0 (uploaded f32: step 2 reads it in f32), a -> f32 once
  // (read by steps 1 and 2), b and c -> f16 for step 3; the weight is
  // uploaded twice instead of converted.
  EXPECT_EQ(plan.conversions, 4);
  EXPECT_EQ(plan.weight_twins, 1);
  ASSERT_EQ(steps.size(), 8u);
  EXPECT_FALSE(tensors[0].f16);  // an upload some step reads in f32
  EXPECT_TRUE(tensors[1].f16);   // the weight as step 0, its first reader, needs it
  EXPECT_TRUE(tensors[2].f16);
  EXPECT_FALSE(tensors[3].f16);
  EXPECT_FALSE(tensors[6].f16);  // not a float
  // Before step 0: x converted down, with the f32 variant of cast.comp.
  const vk::ProgramStep& convert_x = steps[0];
  EXPECT_EQ(convert_x.inputs, std::vector<int>{0});
  EXPECT_FALSE(convert_x.fp16);
  EXPECT_EQ(convert_x.step, 0);
  ASSERT_EQ(convert_x.dispatches.size(), 1u);
  EXPECT_EQ(convert_x.dispatches[0].constants, (std::vector<int32_t>{vk::kCastFloat, vk::kCastHalf}));
  EXPECT_EQ(convert_x.dispatches[0].groups[0], 1u);  // 4 values, two per invocation
  EXPECT_EQ(steps[1].inputs[0], convert_x.outputs[0]);
  EXPECT_TRUE(tensors[static_cast<size_t>(convert_x.outputs[0])].f16);
  // Step 1: a's twin (converted up) and the weight's twin (f32, the same data).
  const vk::ProgramStep& convert_a = steps[2];
  EXPECT_EQ(convert_a.inputs, std::vector<int>{2});
  EXPECT_EQ(convert_a.step, 1);
  EXPECT_EQ(convert_a.dispatches[0].constants, (std::vector<int32_t>{vk::kCastHalf, vk::kCastFloat}));
  const int a32 = convert_a.outputs[0];
  EXPECT_FALSE(tensors[static_cast<size_t>(a32)].f16);
  EXPECT_EQ(steps[3].inputs[0], a32);
  const int w32 = steps[3].inputs[1];
  EXPECT_NE(w32, 1);
  EXPECT_EQ(tensors[static_cast<size_t>(w32)].constant, static_cast<const void*>(weight));
  EXPECT_FALSE(tensors[static_cast<size_t>(w32)].f16);
  // Step 2 shares a's twin and reads x and the i64 tensor as they are.
  EXPECT_EQ(steps[4].inputs, (std::vector<int>{a32, 0, 6}));
  // Step 3 reads b and c converted down, a as it is.
  EXPECT_EQ(steps[5].inputs, std::vector<int>{3});
  EXPECT_EQ(steps[6].inputs, std::vector<int>{4});
  EXPECT_EQ(steps[7].inputs[2], 2);
  EXPECT_TRUE(tensors[static_cast<size_t>(steps[7].inputs[0])].f16);
  EXPECT_TRUE(tensors[static_cast<size_t>(steps[7].inputs[1])].f16);
}

}  // namespace
}  // namespace mote::test
