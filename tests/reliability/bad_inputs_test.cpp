// The catalogue of bad inputs (docs/reliability.md): each entry is one case
// here, asserting that Mote answers with an error naming the file, op or
// tensor at fault, or (for data such as NaN) computes without crashing.
// Corrupted file structure (truncation, bad offsets, unknown dtypes and op
// types, ops out of order) is covered by tests/core/model_loader_test.cpp.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>

#include "mote/mote.hpp"
#include "mote/training.hpp"
#include "tests/support/model_util.hpp"
#include "tests/support/op_attrs.hpp"
#include "tests/support/temp_dir.hpp"

namespace mote::test {
namespace {

// MOTE_PRINT_ERRORS=1 prints each message, to refresh docs/reliability.md.
void expect_error(const Status& st, StatusCode code, std::initializer_list<const char*> fragments) {
  if (std::getenv("MOTE_PRINT_ERRORS")) std::printf("    %s\n", st.to_string().c_str());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), code) << st.to_string();
  for (const char* f : fragments) EXPECT_NE(st.message().find(f), std::string::npos) << "missing '" << f << "' in: " << st.message();
}

// y = relu(x), x: [N, 4] with N dynamic.
GraphBuilder relu_graph() {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {-1, 4});
  b.mark_output(b.add_op(fb::OpType::Relu, {x}, 1, "relu")[0], "y");
  return b;
}

Result<std::vector<Tensor>> run_once(const std::shared_ptr<const Model>& model, const std::vector<Tensor>& inputs) {
  SessionOptions o;
  o.threads = 1;
  MOTE_ASSIGN_OR_RETURN(auto session, Session::create(model, o));
  return session->run(inputs);
}

// ---- files ---------------------------------------------------------------

TEST(BadInputs, EmptyFile) {
  ScopedTempDir dir("bad-inputs");
  std::ofstream(dir.file("empty.mote")).close();
  expect_error(Model::load(dir.file("empty.mote")).status(), StatusCode::kInvalidModel, {"empty.mote"});
}

TEST(BadInputs, DirectoryGivenAsModel) {
  ScopedTempDir dir("bad-inputs");
  expect_error(Model::load(dir.path()).status(), StatusCode::kInvalidArgument, {dir.path().c_str(), "not a regular file"});
}

TEST(BadInputs, MissingFile) {
  expect_error(Model::load("/nonexistent/m.mote").status(), StatusCode::kNotFound,
               {"/nonexistent/m.mote", "No such file"});
}

TEST(BadInputs, UnreadableFile) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads files whatever their mode";
  ScopedTempDir dir("bad-inputs");
  ASSERT_TRUE(relu_graph().save(dir.file("locked.mote")).ok());
  ::chmod(dir.file("locked.mote").c_str(), 0);
  expect_error(Model::load(dir.file("locked.mote")).status(), StatusCode::kIoError, {"locked.mote"});
}

TEST(BadInputs, TextFileGivenAsModel) {
  ScopedTempDir dir("bad-inputs");
  std::ofstream(dir.file("notes.mote")) << "this is not a model, just some text of a reasonable length\n";
  expect_error(Model::load(dir.file("notes.mote")).status(), StatusCode::kInvalidModel, {"notes.mote"});
}

// ---- graphs --------------------------------------------------------------

TEST(BadInputs, TwoInputsWithOneName) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {2});
  int x2 = b.add_input("x", DType::F32, {2});
  b.mark_output(b.add_op(fb::OpType::Add, {x, x2}, 1, "add")[0], "y");
  auto bytes = b.serialize();
  ASSERT_TRUE(bytes.ok());
  Tensor copy = Tensor::zeros(DType::U8, {static_cast<int64_t>(bytes->size())});
  std::copy(bytes->begin(), bytes->end(), copy.data<uint8_t>());
  expect_error(Model::from_buffer(copy.raw(), bytes->size(), "dup.mote").status(), StatusCode::kInvalidModel,
               {"dup.mote", "graph input 1 (tensor 1 'x'): graph input 0 has the same name"});
}

// A cycle needs an op reading a tensor produced later (or by itself): the
// verifier requires every op to read only inputs, constants and earlier outputs.
TEST(BadInputs, CycleInTheGraph) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {2});
  int a = b.add_op(fb::OpType::Add, {x, x}, 1, "add")[0];
  int r = b.add_op(fb::OpType::Relu, {a}, 1, "relu")[0];
  b.mark_output(r, "y");
  b.last_op();  // Relu
  auto bytes = b.serialize();
  ASSERT_TRUE(bytes.ok());
  auto* add = fb::GetMutableModel(bytes->data())->mutable_graph()->mutable_ops()->GetMutableObject(0);
  add->mutable_inputs()->Mutate(1, static_cast<int32_t>(r));  // add reads relu's output: add -> relu -> add
  Tensor copy = Tensor::zeros(DType::U8, {static_cast<int64_t>(bytes->size())});
  std::copy(bytes->begin(), bytes->end(), copy.data<uint8_t>());
  expect_error(Model::from_buffer(copy.raw(), bytes->size(), "cycle.mote").status(), StatusCode::kInvalidModel,
               {"cycle.mote", "Add 'add'", "not produced by any earlier op"});
}

// ---- attributes ----------------------------------------------------------

std::shared_ptr<const Model> conv_model(fb::ConvAttrsT attrs, Shape weight_shape, const std::string& name) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {1, 4, 8, 8});
  int w = b.add_constant("w", Tensor::zeros(DType::F32, weight_shape));
  b.mark_output(b.add_op(fb::OpType::Conv, {x, w}, attrs, 1, "conv")[0], "y");
  return load_built(b, name);
}

Status prepare(const std::shared_ptr<const Model>& model) {
  if (!model) return internal_error("no model");
  auto session = Session::create(model);
  if (!session.ok()) return session.status();
  return (*session)->prepare();
}

TEST(BadInputs, ConvStrideZero) {
  expect_error(prepare(conv_model(conv_attrs({0, 1}), {4, 4, 3, 3}, "stride.mote")), StatusCode::kInvalidModel,
               {"stride.mote", "Conv 'conv'", "stride"});
}

TEST(BadInputs, ConvNegativeKernel) {
  fb::ConvAttrsT attrs = conv_attrs();
  attrs.kernel_shape = {-3, 3};
  expect_error(prepare(conv_model(attrs, {4, 4, 3, 3}, "kernel.mote")), StatusCode::kInvalidModel,
               {"kernel.mote", "Conv 'conv'", "kernel"});
}

TEST(BadInputs, ConvGroupNotDividingChannels) {
  expect_error(prepare(conv_model(conv_attrs({}, {}, {}, 3), {3, 1, 3, 3}, "group.mote")), StatusCode::kInvalidModel,
               {"group.mote", "Conv 'conv'", "group"});
}

TEST(BadInputs, ConvNegativePads) {
  expect_error(prepare(conv_model(conv_attrs({}, {-1, 0, 0, 0}), {4, 4, 3, 3}, "pads.mote")), StatusCode::kInvalidModel,
               {"pads.mote", "Conv 'conv'", "pad"});
}

// ---- inputs --------------------------------------------------------------

// Pooling windows and RoiAlign sampling grids come from the file or the
// data; past a bound they are refused instead of sizing a scratch buffer
// (both found by fuzzing).
TEST(BadInputs, PoolingWindowBeyondTheBound) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {1, 1, 5, 5});
  fb::PoolAttrsT attrs;
  attrs.kernel_shape = {2, 2};
  attrs.strides = {int64_t{1} << 40, 1};
  b.mark_output(b.add_op(fb::OpType::MaxPool, {x}, attrs, 1, "pool")[0], "y");
  expect_error(prepare(load_built(b, "pool.mote")), StatusCode::kInvalidModel,
               {"pool.mote", "MaxPool 'pool'", "reach past 1048576 elements per dimension"});
}

// RoiAlign over a 4x4 image, one region given as input.
std::shared_ptr<const Model> roi_align_model(fb::RoiAlignAttrsT attrs, const std::string& name) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {1, 1, 4, 4});
  int rois = b.add_input("rois", DType::F32, {1, 4});
  int batch = b.add_input("batch", DType::I64, {1});
  b.mark_output(b.add_op(fb::OpType::RoiAlign, {x, rois, batch}, attrs, 1, "roi")[0], "y");
  return load_built(b, name);
}

Result<std::vector<Tensor>> run_roi_align(const std::shared_ptr<const Model>& model, float corner,
                                          float height = 0) {
  return run_once(model, {Tensor::from_vector<float>({1, 1, 4, 4}, std::vector<float>(16, 1.0f)),
                          Tensor::from_vector<float>({1, 4}, {0, 0, corner, height ? height : corner}),
                          Tensor::from_vector<int64_t>({1}, {0})});
}

TEST(BadInputs, RoiAlignRegionNeedingTooManySamples) {
  // Adaptive sampling (sampling_ratio 0) takes ceil(region / bins) points per side.
  auto out = run_roi_align(roi_align_model(fb::RoiAlignAttrsT{}, "roi.mote"), 1e12f);
  expect_error(out.status(), StatusCode::kInvalidArgument, {"RoiAlign 'roi'", "sampling points per bin"});
  // A negative side (half-pixel regions may have one) must not cancel the other's size.
  auto negative = run_roi_align(roi_align_model(fb::RoiAlignAttrsT{}, "roi_neg.mote"), 1e12f, -5.0f);
  expect_error(negative.status(), StatusCode::kInvalidArgument, {"RoiAlign 'roi'", "sampling points per bin"});
}

TEST(BadInputs, RoiAlignNanRegionRuns) {
  fb::RoiAlignAttrsT attrs;
  attrs.sampling_ratio = 2;
  auto out = run_roi_align(roi_align_model(attrs, "roi_nan.mote"), std::numeric_limits<float>::quiet_NaN());
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].data<float>()[0], 0.0f);  // NaN samples fall outside the image
}

TEST(BadInputs, MismatchedInputDtype) {
  auto out = run_once(load_built(relu_graph(), "relu.mote"), {Tensor::zeros(DType::I32, {1, 4})});
  expect_error(out.status(), StatusCode::kInvalidArgument, {"relu.mote", "input 'x'", "i32", "f32"});
}

TEST(BadInputs, MismatchedInputShape) {
  auto out = run_once(load_built(relu_graph(), "relu.mote"), {Tensor::zeros(DType::F32, {1, 5})});
  expect_error(out.status(), StatusCode::kInvalidArgument, {"relu.mote", "input 'x'", "1x5"});
}

TEST(BadInputs, WrongNumberOfInputs) {
  auto out = run_once(load_built(relu_graph(), "relu.mote"), {});
  expect_error(out.status(), StatusCode::kInvalidArgument, {"relu.mote", "got 0 inputs"});
}

TEST(BadInputs, ZeroSizedDimensionRuns) {
  auto out = run_once(load_built(relu_graph(), "relu.mote"), {Tensor::zeros(DType::F32, {0, 4})});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 4}));
}

TEST(BadInputs, NanAndInfInputsPropagate) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = run_once(load_built(relu_graph(), "relu.mote"), {Tensor::from_vector<float>({1, 4}, {nan, inf, -inf, 1})});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  const float* y = (*out)[0].data<float>();
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_EQ(y[1], inf);
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_EQ(y[3], 1.0f);
}

TEST(BadInputs, HugeDynamicShapeWithALimit) {
  SessionOptions o;
  o.max_arena_bytes = 1 << 20;
  auto session = Session::create(load_built(relu_graph(), "relu.mote"), o);
  ASSERT_TRUE(session.ok());
  expect_error((*session)->prepare({{"x", Shape{int64_t{1} << 33, 4}}}), StatusCode::kOutOfMemory,
               {"relu.mote", "max_arena_bytes"});
}

// ---- checkpoints ---------------------------------------------------------

TEST(BadInputs, OptimizerStateOfAnotherModel) {
  ScopedTempDir dir("bad-inputs");
  auto mlp = [](int64_t width) {
    GraphBuilder b;
    int x = b.add_input("x", DType::F32, {2, 3});
    int w = b.add_constant("w", Tensor::zeros(DType::F32, {3, width}));
    b.mark_output(b.add_op(fb::OpType::MatMul, {x, w})[0], "logits");
    return b;
  };
  TrainingOptions t;
  t.optimizer.kind = OptimizerKind::kAdamW;
  t.session.threads = 1;
  ASSERT_TRUE(mlp(4).save(dir.file("wide.mote")).ok());
  auto wide = TrainingSession::create(*Model::load(dir.file("wide.mote")), t);
  ASSERT_TRUE(wide.ok());
  ASSERT_TRUE((*wide)->train_step({Tensor::zeros(DType::F32, {2, 3})}, Tensor::from_vector<int64_t>({2}, {0, 1})).ok());
  ASSERT_TRUE((*wide)->save(dir.file("wide_trained.mote")).ok());

  ASSERT_TRUE(mlp(2).save(dir.file("narrow.mote")).ok());
  auto narrow = TrainingSession::create(*Model::load(dir.file("narrow.mote")), t);
  ASSERT_TRUE(narrow.ok());
  expect_error((*narrow)->restore_optimizer(dir.file("wide_trained.mote")), StatusCode::kInvalidArgument,
               {"wide_trained.mote.optimizer", "w"});
  EXPECT_EQ((*narrow)->step(), 0);  // nothing half-restored
}

}  // namespace
}  // namespace mote::test
