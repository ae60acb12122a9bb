// If, Loop and Scan built with GraphBuilder bodies, run on the CPU and
// reference backends; expected values are worked out by hand in each test.
#include <gtest/gtest.h>

#include "mote/mote.hpp"
#include "tests/support/model_util.hpp"

namespace mote {
namespace {

std::vector<float> floats(const Tensor& t) {
  std::vector<float> v;
  for (double d : t.to_doubles()) v.push_back(static_cast<float>(d));
  return v;
}

Tensor scalar_bool(bool v) {
  Tensor t = Tensor::zeros(DType::Bool, {});
  *t.data<bool>() = v;
  return t;
}

class ControlFlow : public ::testing::TestWithParam<Backend> {
 protected:
  std::unique_ptr<Session> session(std::shared_ptr<const Model> model) {
    auto s = Session::create(std::move(model), {.backend = GetParam(), .threads = 1});
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    return s.ok() ? std::move(*s) : nullptr;
  }
};

// y = cond ? x + 1 : x * 2, both branches reading x from the outer graph.
std::shared_ptr<const Model> if_model() {
  GraphBuilder then_b;
  int tx = then_b.add_input("x", DType::F32, {3});
  int one = then_b.add_constant("one", Tensor::from_vector<float>({1}, {1}));
  then_b.mark_output(then_b.add_op(fb::OpType::Add, {tx, one})[0], "y");
  GraphBuilder else_b;
  int ex = else_b.add_input("x", DType::F32, {3});
  int two = else_b.add_constant("two", Tensor::from_vector<float>({1}, {2}));
  else_b.mark_output(else_b.add_op(fb::OpType::Mul, {ex, two})[0], "y");

  GraphBuilder b;
  int cond = b.add_input("cond", DType::Bool, {});
  int x = b.add_input("x", DType::F32, {3});
  uint32_t s_then = b.add_subgraph(std::move(then_b));
  uint32_t s_else = b.add_subgraph(std::move(else_b));
  fb::ControlFlowAttrsT a;
  a.body_captures = {1, 1};
  int y = b.add_op(fb::OpType::If, {cond, x, x}, a, 1, "branch")[0];
  b.last_op().subgraphs = {s_then, s_else};
  b.set_tensor_info(y, DType::F32, {3});
  b.mark_output(y, "y");
  return test::load_built(b, "control_flow.mote");
}

TEST_P(ControlFlow, IfRunsTheBranchItsConditionPicks) {
  auto s = session(if_model());
  ASSERT_NE(s, nullptr);
  Tensor x = Tensor::from_vector<float>({3}, {1, -2, 5});
  auto taken = s->run(std::vector<Tensor>{scalar_bool(true), x});
  ASSERT_TRUE(taken.ok()) << taken.status().to_string();
  EXPECT_EQ(floats((*taken)[0]), (std::vector<float>{2, -1, 6}));
  auto other = s->run(std::vector<Tensor>{scalar_bool(false), x});
  ASSERT_TRUE(other.ok()) << other.status().to_string();
  EXPECT_EQ(floats((*other)[0]), (std::vector<float>{2, -4, 10}));
}

// Loop(M, cond omitted, acc) with body acc += x (x captured) and a scan
// output of the iteration number as f32. With M omitted the body's
// condition, i < 4, ends it after iteration 4.
std::shared_ptr<const Model> loop_model(bool with_trip_count) {
  GraphBuilder body;
  int iter = body.add_input("i", DType::I64, {});
  int cond = body.add_input("cond", DType::Bool, {});
  int acc = body.add_input("acc", DType::F32, {2});
  int x = body.add_input("x", DType::F32, {2});
  int next_cond = cond;
  if (!with_trip_count) {
    int four = body.add_constant("four", Tensor::from_vector<int64_t>({}, {4}));
    next_cond = body.add_op(fb::OpType::Less, {iter, four})[0];
  } else {
    next_cond = body.add_op(fb::OpType::Identity, {cond})[0];
  }
  body.mark_output(next_cond, "cond_out");
  body.mark_output(body.add_op(fb::OpType::Add, {acc, x})[0], "acc_out");
  fb::CastAttrsT to_f32;
  to_f32.to = DType::F32;
  int as_float = body.add_op(fb::OpType::Cast, {iter}, to_f32)[0];
  body.set_tensor_info(as_float, DType::F32, {});
  body.mark_output(as_float, "i_f32");

  GraphBuilder b;
  int m = with_trip_count ? b.add_input("M", DType::I64, {}) : -1;
  int acc0 = b.add_input("acc0", DType::F32, {2});
  int x_outer = b.add_input("x", DType::F32, {2});
  uint32_t s = b.add_subgraph(std::move(body));
  fb::ControlFlowAttrsT a;
  a.body_captures = {1};
  auto outs = b.add_op(fb::OpType::Loop, {m, -1, acc0, x_outer}, a, 2, "loop");
  b.last_op().subgraphs = {s};
  b.set_tensor_info(outs[0], DType::F32, {2});
  b.set_tensor_info(outs[1], DType::F32, {-1});
  b.mark_output(outs[0], "acc");
  b.mark_output(outs[1], "iterations");
  return test::load_built(b, "control_flow.mote");
}

TEST_P(ControlFlow, LoopRunsTripCountTimesAndStacksScanOutputs) {
  auto s = session(loop_model(true));
  ASSERT_NE(s, nullptr);
  Tensor acc0 = Tensor::from_vector<float>({2}, {10, 20});
  Tensor x = Tensor::from_vector<float>({2}, {1, -3});
  auto out = s->run(std::vector<Tensor>{Tensor::from_vector<int64_t>({}, {3}), acc0, x});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(floats((*out)[0]), (std::vector<float>{13, 11}));
  EXPECT_EQ((*out)[1].shape(), (Shape{3}));
  EXPECT_EQ(floats((*out)[1]), (std::vector<float>{0, 1, 2}));

  // Zero iterations: the carried value passes through, the scan output is empty.
  auto none = s->run(std::vector<Tensor>{Tensor::from_vector<int64_t>({}, {0}), acc0, x});
  ASSERT_TRUE(none.ok()) << none.status().to_string();
  EXPECT_EQ(floats((*none)[0]), (std::vector<float>{10, 20}));
  EXPECT_EQ((*none)[1].shape(), (Shape{0}));
}

TEST_P(ControlFlow, LoopWithoutTripCountStopsOnTheBodysCondition) {
  auto s = session(loop_model(false));
  ASSERT_NE(s, nullptr);
  auto out = s->run(std::vector<Tensor>{Tensor::from_vector<float>({2}, {0, 0}), Tensor::from_vector<float>({2}, {1, 2})});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  // Iterations 0..4 run; the condition computed in iteration 4 (4 < 4) stops it.
  EXPECT_EQ(floats((*out)[0]), (std::vector<float>{5, 10}));
  EXPECT_EQ(floats((*out)[1]), (std::vector<float>{0, 1, 2, 3, 4}));
}

// Scan over the rows of X [4, 2]: state s += row, scan output the running
// sum, stacked along `output_axis`; `reverse` walks the rows backwards.
std::shared_ptr<const Model> scan_model(bool reverse, int64_t output_axis) {
  GraphBuilder body;
  int st = body.add_input("s", DType::F32, {2});
  int row = body.add_input("row", DType::F32, {2});
  int sum = body.add_op(fb::OpType::Add, {st, row})[0];
  body.mark_output(sum, "s_out");
  body.mark_output(body.add_op(fb::OpType::Identity, {sum})[0], "running");

  GraphBuilder b;
  int s0 = b.add_input("s0", DType::F32, {2});
  int xs = b.add_input("X", DType::F32, {4, 2});
  uint32_t s = b.add_subgraph(std::move(body));
  fb::ControlFlowAttrsT a;
  a.body_captures = {0};
  a.num_scan_inputs = 1;
  a.scan_input_directions = {reverse ? 1 : 0};
  a.scan_output_axes = {output_axis};
  auto outs = b.add_op(fb::OpType::Scan, {s0, xs}, a, 2, "scan");
  b.last_op().subgraphs = {s};
  b.mark_output(outs[0], "s");
  b.mark_output(outs[1], "running");
  return test::load_built(b, "control_flow.mote");
}

TEST_P(ControlFlow, ScanCarriesStateAndStacksPerRowOutputs) {
  Tensor s0 = Tensor::from_vector<float>({2}, {100, 0});
  Tensor xs = Tensor::from_vector<float>({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  {
    auto s = session(scan_model(false, 0));
    ASSERT_NE(s, nullptr);
    auto out = s->run(std::vector<Tensor>{s0, xs});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    EXPECT_EQ(floats((*out)[0]), (std::vector<float>{116, 20}));
    EXPECT_EQ((*out)[1].shape(), (Shape{4, 2}));
    EXPECT_EQ(floats((*out)[1]), (std::vector<float>{101, 2, 104, 6, 109, 12, 116, 20}));
  }
  {
    // Backwards over the rows, the running sums stacked along axis 1.
    auto s = session(scan_model(true, 1));
    ASSERT_NE(s, nullptr);
    auto out = s->run(std::vector<Tensor>{s0, xs});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    EXPECT_EQ(floats((*out)[0]), (std::vector<float>{116, 20}));
    EXPECT_EQ((*out)[1].shape(), (Shape{2, 4}));
    EXPECT_EQ(floats((*out)[1]), (std::vector<float>{107, 112, 115, 116, 8, 14, 18, 20}));
  }
}

TEST_P(ControlFlow, ReportsABranchThatDoesNotMatchTheOp) {
  GraphBuilder then_b;
  then_b.mark_output(then_b.add_constant("c", Tensor::from_vector<float>({1}, {1})), "y");
  GraphBuilder b;
  int cond = b.add_input("cond", DType::Bool, {});
  uint32_t s_then = b.add_subgraph(std::move(then_b));
  fb::ControlFlowAttrsT a;
  a.body_captures = {0};
  b.mark_output(b.add_op(fb::OpType::If, {cond}, a, 1, "one_branch")[0], "y");
  b.last_op().subgraphs = {s_then};
  auto s = session(test::load_built(b, "control_flow.mote"));
  ASSERT_NE(s, nullptr);
  auto out = s->run(std::vector<Tensor>{scalar_bool(true)});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("one_branch"), std::string::npos) << out.status().message();
  EXPECT_NE(out.status().message().find("has 1 bodies, expected 2"), std::string::npos) << out.status().message();
}

INSTANTIATE_TEST_SUITE_P(Backends, ControlFlow, ::testing::Values(Backend::kCpu, Backend::kReference),
                         [](const auto& info) { return std::string(backend_name(info.param)); });

TEST(ControlFlowModel, LoaderRefusesABodyIndexOutOfRange) {
  GraphBuilder b;
  int cond = b.add_input("cond", DType::Bool, {});
  fb::ControlFlowAttrsT a;
  b.mark_output(b.add_op(fb::OpType::If, {cond}, a, 1, "dangling")[0], "y");
  b.last_op().subgraphs = {0, 7};
  auto bytes = b.serialize();
  ASSERT_TRUE(bytes.ok());
  Tensor storage = Tensor::zeros(DType::U8, {int64_t(bytes->size())});
  std::copy(bytes->begin(), bytes->end(), storage.data<uint8_t>());
  auto model = Model::from_buffer(storage.raw(), storage.bytes(), "dangling.mote");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("dangling"), std::string::npos) << model.status().message();
  EXPECT_NE(model.status().message().find("body 0"), std::string::npos) << model.status().message();
}

}  // namespace
}  // namespace mote
