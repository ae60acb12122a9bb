// Session behaviour: planning, re-planning on new shapes, constant folding,
// run-time (dynamic) shapes, and clear errors for bad inputs. Expected values
// are computed in the tests by hand.
#include <cmath>
#include <gtest/gtest.h>

#include <algorithm>

#include "mote/mote.hpp"
#include "tests/support/model_util.hpp"

namespace mote {
namespace {

// y = relu(x + c), batch dimension dynamic.
std::shared_ptr<const Model> add_relu_model() {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {-1, 4});
  int c = b.add_constant("c", Tensor::from_vector<float>({4}, {1, -2, 3, -4}));
  int s = b.add_op(fb::OpType::Add, {x, c})[0];
  b.mark_output(b.add_op(fb::OpType::Relu, {s})[0], "y");
  return test::load_built(b, "test.mote");
}

TEST(Session, RunsAndReplansWhenShapesChange) {
  auto session = Session::create(add_relu_model(), {.threads = 2});
  ASSERT_TRUE(session.ok());
  for (int64_t batch : {1, 3, 2}) {
    std::vector<float> xs(static_cast<size_t>(batch * 4));
    for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(i) - 5.0f;
    auto out = (*session)->run({Tensor::from_vector<float>({batch, 4}, xs)});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    ASSERT_EQ((*out)[0].shape(), (Shape{batch, 4}));
    const float c[4] = {1, -2, 3, -4};
    for (size_t i = 0; i < xs.size(); ++i) {
      EXPECT_EQ((*out)[0].data<float>()[i], std::max(0.0f, xs[i] + c[i % 4])) << i;
    }
  }
}

TEST(Session, OutputsSurviveTheNextRun) {
  auto session = Session::create(add_relu_model(), {.threads = 1});
  auto a = (*session)->run({Tensor::from_vector<float>({1, 4}, {1, 1, 1, 1})});
  auto b = (*session)->run({Tensor::from_vector<float>({1, 4}, {9, 9, 9, 9})});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*a)[0].data<float>()[0], 2.0f);
  EXPECT_EQ((*b)[0].data<float>()[0], 10.0f);
}

// A graph output's buffer is reused by the next run only once the caller
// holds no Tensor sharing it (a copy or a reshaped view keeps it), and the
// reused buffer gets the new run's values everywhere.
TEST(Session, OutputBuffersAreReusedOnlyWhenReleased) {
  auto session = Session::create(add_relu_model(), {.threads = 1});
  ASSERT_TRUE(session.ok());
  const auto run = [&](float v) {
    auto out = (*session)->run({Tensor::from_vector<float>({2, 4}, std::vector<float>(8, v))});
    EXPECT_TRUE(out.ok()) << out.status().to_string();
    return std::move((*out)[0]);
  };
  const auto expect_values = [](const Tensor& y, float v) {
    const float c[4] = {1, -2, 3, -4};
    for (int i = 0; i < 8; ++i) EXPECT_EQ(y.data<float>()[i], std::max(0.0f, v + c[i % 4])) << i;
  };
  const void* first = nullptr;
  {
    Tensor y = run(5.0f);
    first = y.raw();
  }
  Tensor kept = run(7.0f);  // released: reuses the first run's buffer
  EXPECT_EQ(kept.raw(), first);
  expect_values(kept, 7.0f);
  {
    Tensor y = run(9.0f);  // `kept` is held: a new buffer
    EXPECT_NE(y.raw(), first);
    expect_values(y, 9.0f);
  }
  expect_values(kept, 7.0f);
  // The last run's buffer, held only through a view.
  const Tensor view = run(4.0f).reshaped({8});
  Tensor y = run(6.0f);
  EXPECT_NE(y.raw(), view.raw());
  expect_values(y, 6.0f);
  expect_values(view.reshaped({2, 4}), 4.0f);
}

TEST(Session, RejectsBadInputsWithClearErrors) {
  auto session = Session::create(add_relu_model());
  auto wrong_dtype = (*session)->run({Tensor::zeros(DType::I32, {1, 4})});
  ASSERT_FALSE(wrong_dtype.ok());
  EXPECT_NE(wrong_dtype.status().message().find("input 'x': dtype i32"), std::string::npos)
      << wrong_dtype.status().message();
  auto wrong_shape = (*session)->run({Tensor::zeros(DType::F32, {1, 5})});
  ASSERT_FALSE(wrong_shape.ok());
  EXPECT_NE(wrong_shape.status().message().find("does not match the declared ?x4"), std::string::npos)
      << wrong_shape.status().message();
  auto wrong_count = (*session)->run(std::vector<Tensor>{});
  EXPECT_FALSE(wrong_count.ok());
  auto dynamic_prepare = (*session)->prepare();
  EXPECT_FALSE(dynamic_prepare.ok());
  EXPECT_TRUE((*session)->prepare({{"x", {2, 4}}}).ok());
  EXPECT_EQ((*session)->prepare({{"nope", {2, 4}}}).code(), StatusCode::kNotFound);
}

TEST(Session, ArenaSharesMemoryAlongAChain) {
  GraphBuilder b;
  int t = b.add_input("x", DType::F32, {1024});
  for (int i = 0; i < 6; ++i) t = b.add_op(fb::OpType::Relu, {t})[0];
  b.mark_output(t, "y");
  auto session = Session::create(test::load_built(b, "test.mote"), {.threads = 1});
  ASSERT_TRUE((*session)->prepare().ok());
  const PlanStats& stats = (*session)->plan_stats();
  // Five intermediates of 4 KiB; a chain needs only two alive at once.
  EXPECT_EQ(stats.unshared_bytes, 5u * 4096);
  EXPECT_EQ(stats.arena_bytes, 2u * 4096);
}

// Reshape and Unsqueeze of arena tensors are views: their outputs share the
// input's bytes, so only four of the seven intermediates take arena space,
// and the values stay right where a viewed tensor is read after its view's
// readers (a, by Exp) and a view after its tensor's other readers (v, last).
TEST(Session, ReshapesOfArenaTensorsAreViews) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {2, 512});
  int a = b.add_op(fb::OpType::Relu, {x})[0];
  int v = b.add_op(fb::OpType::Reshape, {a, b.add_constant("s", Tensor::from_vector<int64_t>({2}, {1024, 1}))})[0];
  int n = b.add_op(fb::OpType::Neg, {v})[0];
  int u = b.add_op(fb::OpType::Unsqueeze, {n, b.add_constant("axes", Tensor::from_vector<int64_t>({1}, {0}))})[0];
  int s2 = b.add_constant("s2", Tensor::from_vector<int64_t>({2}, {2, 512}));
  int back = b.add_op(fb::OpType::Reshape, {u, s2})[0];
  int e = b.add_op(fb::OpType::Exp, {a})[0];
  int sum = b.add_op(fb::OpType::Add, {back, e})[0];
  int t = b.add_op(fb::OpType::Reshape, {v, s2})[0];
  b.mark_output(b.add_op(fb::OpType::Mul, {sum, t})[0], "y");
  auto session = Session::create(test::load_built(b, "test.mote"), {.threads = 1});
  ASSERT_TRUE(session.ok()) << session.status().to_string();
  std::vector<float> xs(1024);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(static_cast<int>(i % 7) - 3) * 0.25f;
  auto out = (*session)->run({Tensor::from_vector<float>({2, 512}, xs)});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  for (size_t i = 0; i < xs.size(); ++i) {
    const double relu = std::max(xs[i], 0.0f);
    ASSERT_NEAR((*out)[0].data<float>()[i], (std::exp(relu) - relu) * relu, 1e-5) << i;
  }
  // Requests: a (with its views v and t), n (with u and back), e and sum.
  EXPECT_EQ((*session)->plan_stats().unshared_bytes, 4u * 4096);
}

// A Transpose that moves only axes of size 1 is a view, like a Reshape: t
// of a and u of n share their inputs' bytes; w, which moves real axes, is a
// copy. Requests: a (with t), n (with u and r), w.
TEST(Session, TransposesOfUnitAxesAreViews) {
  GraphBuilder b;
  auto transpose = [&b](int x, std::vector<int64_t> perm) {
    fb::TransposeAttrsT a;
    a.perm = std::move(perm);
    return b.add_op(fb::OpType::Transpose, {x}, a)[0];
  };
  int x = b.add_input("x", DType::F32, {1, 8, 64});
  int a = b.add_op(fb::OpType::Relu, {x})[0];
  int t = transpose(a, {1, 0, 2});  // [8, 1, 64]
  int n = b.add_op(fb::OpType::Neg, {t})[0];
  int u = transpose(n, {0, 2, 1});  // [8, 64, 1]
  int r = b.add_op(fb::OpType::Reshape, {u, b.add_constant("s", Tensor::from_vector<int64_t>({2}, {8, 64}))})[0];
  int w = transpose(r, {1, 0});  // [64, 8]
  b.mark_output(b.add_op(fb::OpType::Abs, {w})[0], "y");
  auto session = Session::create(test::load_built(b, "test.mote"), {.threads = 1});
  ASSERT_TRUE(session.ok()) << session.status().to_string();
  std::vector<float> xs(512);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(static_cast<int>(i % 9) - 4) * 0.5f;
  auto out = (*session)->run({Tensor::from_vector<float>({1, 8, 64}, xs)});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  ASSERT_EQ((*out)[0].shape(), (Shape{64, 8}));
  for (size_t j = 0; j < 64; ++j) {
    for (size_t i = 0; i < 8; ++i) {
      ASSERT_EQ((*out)[0].data<float>()[j * 8 + i], std::max(xs[i * 64 + j], 0.0f)) << j << ", " << i;
    }
  }
  EXPECT_EQ((*session)->plan_stats().unshared_bytes, 3u * 2048);
}

// Inputs of a Concat with only ones before its axis are written by their
// producers straight into its output (ExecutionPlan::concat_slabs): a and n
// into cat1, e into cat2, z1 into cat5. Not placed: a's second use in cat1
// and its use in cat2, the graph input x, the graph output o, anything in
// cat3 (a graph output), cat4's inputs (two rows before its axis: placed,
// the values would come out interleaved wrongly) and z2 (its slab starts 60
// bytes in, off the arena's alignment). a is read after cat1's last reader
// (s1), so cat1's bytes must stay reserved until then while t1 and t2 look
// for space.
TEST(Session, ConcatInputsAreWrittenInPlace) {
  GraphBuilder b;
  auto concat = [&b](const std::vector<int>& inputs, int64_t axis) {
    fb::AxisAttrsT a;
    a.axis = axis;
    return b.add_op(fb::OpType::Concat, inputs, a)[0];
  };
  int x = b.add_input("x", DType::F32, {1, 16});
  int a = b.add_op(fb::OpType::Relu, {x})[0];
  int n = b.add_op(fb::OpType::Neg, {x})[0];
  int o = b.add_op(fb::OpType::Sigmoid, {x})[0];
  int cat1 = concat({a, n, a, x, o}, 1);
  int s1 = b.add_op(fb::OpType::Abs, {cat1})[0];
  int t1 = b.add_op(fb::OpType::Exp, {x})[0];
  int t2 = b.add_op(fb::OpType::Mul, {t1, t1})[0];
  int e = b.add_op(fb::OpType::Add, {a, t2})[0];
  int cat2 = concat({a, e}, 1);
  int cat3 = concat({s1, cat2}, 1);
  int rows = b.add_op(fb::OpType::Reshape, {x, b.add_constant("s", Tensor::from_vector<int64_t>({2}, {2, 8}))})[0];
  int p = b.add_op(fb::OpType::Relu, {rows})[0];
  int q = b.add_op(fb::OpType::Neg, {p})[0];
  int cat4 = concat({p, q}, 1);
  int z = b.add_input("z", DType::F32, {1, 15});
  int cat5 = concat({b.add_op(fb::OpType::Relu, {z})[0], b.add_op(fb::OpType::Neg, {z})[0]}, 1);
  b.mark_output(cat3, "cat3");
  b.mark_output(b.add_op(fb::OpType::Abs, {cat4})[0], "cat4");
  b.mark_output(o, "o");
  b.mark_output(b.add_op(fb::OpType::Abs, {cat5})[0], "cat5");
  auto session = Session::create(test::load_built(b, "test.mote"), {.threads = 2});
  ASSERT_TRUE(session.ok()) << session.status().to_string();
  std::vector<float> xs(16);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(static_cast<int>(i % 5) - 2) * 0.5f;
  std::vector<float> zs(15);
  for (size_t i = 0; i < zs.size(); ++i) zs[i] = static_cast<float>(i) - 7.0f;
  auto out = (*session)->run(
      std::vector<Tensor>{Tensor::from_vector<float>({1, 16}, xs), Tensor::from_vector<float>({1, 15}, zs)});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  ASSERT_EQ((*out)[0].shape(), (Shape{1, 112}));
  ASSERT_EQ((*out)[3].shape(), (Shape{1, 30}));
  for (size_t i = 0; i < 30; ++i) {
    const float v = zs[i % 15];
    ASSERT_EQ((*out)[3].data<float>()[i], i < 15 ? std::max(v, 0.0f) : std::abs(v)) << i;
  }
  ASSERT_EQ((*out)[1].shape(), (Shape{2, 16}));
  std::vector<double> want3, want4;
  auto sigmoid = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
  for (int part = 0; part < 5; ++part) {
    for (float v : xs) {
      const double values[5] = {std::max(v, 0.0f), -v, std::max(v, 0.0f), v, sigmoid(v)};
      want3.push_back(std::abs(values[part]));
    }
  }
  for (float v : xs) want3.push_back(std::max(v, 0.0f));
  for (float v : xs) want3.push_back(std::max(v, 0.0f) + std::exp(2.0 * v));
  for (int r = 0; r < 2; ++r) {
    for (int part = 0; part < 2; ++part) {
      for (int c = 0; c < 8; ++c) {
        const double relu = std::max(xs[static_cast<size_t>(r * 8 + c)], 0.0f);
        want4.push_back(relu);  // |relu| and |-relu|
      }
    }
  }
  for (size_t i = 0; i < want3.size(); ++i) ASSERT_NEAR((*out)[0].data<float>()[i], want3[i], 1e-5) << i;
  for (size_t i = 0; i < want4.size(); ++i) ASSERT_NEAR((*out)[1].data<float>()[i], want4[i], 1e-6) << i;
  // Requests: cat1 (holding a and n, 320 bytes), s1 (320), t1, t2 (64
  // each), cat2 (holding e, 128), rows, p and q (64 each), cat4 (128), cat5
  // (holding z1, 120 rounded to 128) and z2 (60 rounded to 64); a, n, e and
  // z1 take none of their own.
  EXPECT_EQ((*session)->plan_stats().unshared_bytes, 320u + 320 + 64 + 64 + 128 + 3 * 64 + 128 + 128 + 64);
}

TEST(Session, FoldsShapeChainsAtPrepare) {
  // y = Reshape(x, Shape(x)) after Relu: the shape input is computable at
  // prepare, so only Relu and Reshape run.
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {2, 3});
  int shape = b.add_op(fb::OpType::Shape, {x})[0];
  int r = b.add_op(fb::OpType::Relu, {x})[0];
  b.mark_output(b.add_op(fb::OpType::Reshape, {r, shape})[0], "y");
  auto session = Session::create(test::load_built(b, "test.mote"), {.threads = 1});
  auto out = (*session)->run({Tensor::from_vector<float>({2, 3}, {-1, 2, -3, 4, -5, 6})});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].shape(), (Shape{2, 3}));
  EXPECT_EQ((*out)[0].data<float>()[3], 4.0f);
  EXPECT_EQ((*session)->plan_stats().ops_folded, 1);
  EXPECT_EQ((*session)->plan_stats().ops_dynamic, 0);
}

TEST(Session, DataDependentShapesRunDynamically) {
  // The target shape is a graph input: only known at run time.
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {6});
  int shape = b.add_input("shape", DType::I64, {2});
  int r = b.add_op(fb::OpType::Reshape, {x, shape})[0];
  b.mark_output(b.add_op(fb::OpType::Relu, {r})[0], "y");
  auto session = Session::create(test::load_built(b, "test.mote"), {.threads = 1});
  for (auto target : {std::vector<int64_t>{2, 3}, std::vector<int64_t>{3, 2}}) {
    std::vector<Tensor> inputs = {Tensor::from_vector<float>({6}, {-1, 2, -3, 4, -5, 6}),
                                  Tensor::from_vector<int64_t>({2}, target)};
    auto out = (*session)->run(inputs);
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    EXPECT_EQ((*out)[0].shape(), (Shape{target[0], target[1]}));
    EXPECT_EQ((*out)[0].data<float>()[1], 2.0f);
    EXPECT_EQ((*out)[0].data<float>()[2], 0.0f);
  }
  EXPECT_EQ((*session)->plan_stats().ops_dynamic, 2);
}

TEST(Session, ReferenceBackendGivesTheSameResult) {
  auto model = add_relu_model();
  auto cpu = Session::create(model, {.backend = Backend::kCpu});
  auto ref = Session::create(model, {.backend = Backend::kReference});
  Tensor x = Tensor::from_vector<float>({2, 4}, {1, 2, 3, 4, -5, -6, 7, 8});
  auto a = (*cpu)->run({x});
  auto r = (*ref)->run({x});
  ASSERT_TRUE(a.ok() && r.ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ((*a)[0].data<float>()[i], (*r)[0].data<float>()[i]);
}

TEST(Session, ErrorsNameTheOp) {
  // Relu on an i32 tensor: the kernel refuses, and the message says which op.
  GraphBuilder b;
  int x = b.add_input("x", DType::I32, {3});
  b.mark_output(b.add_op(fb::OpType::Relu, {x}, 1, "my_relu")[0], "y");
  auto session = Session::create(test::load_built(b, "test.mote"));
  auto out = (*session)->run({Tensor::zeros(DType::I32, {3})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("op #0 (Relu 'my_relu')"), std::string::npos) << out.status().message();
  EXPECT_NE(out.status().message().find("test.mote"), std::string::npos) << out.status().message();
}

// f64 math runs on the reference kernels only; the CPU backend's kernels
// compute in f32 and must refuse f64 with a clear error, not read its bytes
// as floats.
TEST(Session, F64RunsOnTheReferenceBackendOnly) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F64, {4});
  int c = b.add_constant("c", Tensor::from_vector<double>({4}, {1, -2, 3, -4}));  // cs below
  b.mark_output(b.add_op(fb::OpType::Relu, {b.add_op(fb::OpType::Add, {x, c})[0]})[0], "y");
  auto model = test::load_built(b, "test.mote");
  // 4 + 1e-12 - 4 is 0 in f32; in f64 it stays near 1e-12.
  const std::vector<double> xs = {0.5, 1.0, -3.25, 4.0 + 1e-12}, cs = {1, -2, 3, -4};
  const Tensor input = Tensor::from_vector<double>({4}, xs);

  auto ref = Session::create(model, {.backend = Backend::kReference, .threads = 1});
  ASSERT_TRUE(ref.ok()) << ref.status().to_string();
  auto out = (*ref)->run({input});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  ASSERT_EQ((*out)[0].dtype(), DType::F64);
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_EQ((*out)[0].data<double>()[i], std::max(xs[i] + cs[i], 0.0)) << i;
  EXPECT_GT((*out)[0].data<double>()[3], 0.0);

  auto cpu = Session::create(model, {.backend = Backend::kCpu, .threads = 1});
  Status st = cpu.ok() ? (*cpu)->run({input}).status() : cpu.status();
  EXPECT_EQ(st.code(), StatusCode::kUnsupported) << st.to_string();
  EXPECT_NE(st.message().find("Add"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("f64 tensors run only on the reference backend"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace mote
