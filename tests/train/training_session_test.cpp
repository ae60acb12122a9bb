// TrainingSession end to end: losses fall, optimizer updates match host
// formulas, schedules, trainable selection, save + resume, atomic save.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "mote/graph_builder.hpp"
#include "mote/training.hpp"
#include "tests/support/op_test_util.hpp"
#include "tests/support/temp_dir.hpp"

namespace mote::test {
namespace {

std::string temp_path(const std::string& name) {
  return process_temp_dir().file(name);
}

std::shared_ptr<const Model> load(const GraphBuilder& b, const std::string& name) {
  const std::string path = temp_path(name);
  EXPECT_TRUE(b.save(path).ok());
  auto model = Model::load(path);
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  return *model;
}

// x [N,4] -> Gemm(w1, b1) (+ fused or separate Relu) -> Gemm(w2, b2) -> logits [N,3].
std::shared_ptr<const Model> mlp(const std::string& name, bool fused_relu = false) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {-1, 4});
  int w1 = b.add_constant("fc1.weight", random_tensor(DType::F32, {4, 16}, 1, -0.5, 0.5));
  int b1 = b.add_constant("fc1.bias", Tensor::zeros(DType::F32, {16}));
  int w2 = b.add_constant("fc2.weight", random_tensor(DType::F32, {16, 3}, 2, -0.5, 0.5));
  int b2 = b.add_constant("fc2.bias", Tensor::zeros(DType::F32, {3}));
  int h = b.add_op(fb::OpType::Gemm, {x, w1, b1}, fb::GemmAttrsT{})[0];
  if (fused_relu) {
    b.last_op().fused = std::make_unique<fb::FusedActivationT>();
    b.last_op().fused->kind = fb::ActivationKind::Relu;
  } else {
    h = b.add_op(fb::OpType::Relu, {h}, 1, "relu")[0];
  }
  int features = h;
  b.set_tensor_name(features, "features");
  int y = b.add_op(fb::OpType::Gemm, {features, w2, b2}, fb::GemmAttrsT{})[0];
  b.mark_output(y, "logits");
  return load(b, name);
}

// Three linearly separable blobs in 4-D.
void blobs(int n, uint32_t seed, Tensor& x, Tensor& labels) {
  x = random_tensor(DType::F32, {n, 4}, seed, -0.3, 0.3);
  std::vector<int64_t> l(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    l[static_cast<size_t>(i)] = i % 3;
    x.data<float>()[i * 4 + i % 3] += 1.0f;
  }
  labels = Tensor::from_vector<int64_t>({n}, l);
}

std::unique_ptr<TrainingSession> trainer(std::shared_ptr<const Model> model, TrainingOptions o) {
  o.session.threads = 1;  // bitwise-reproducible runs for the resume test
  auto t = TrainingSession::create(std::move(model), o);
  EXPECT_TRUE(t.ok()) << t.status().to_string();
  return t.ok() ? std::move(*t) : nullptr;
}

// Saves `t` to a temporary `name`, loads the saved model and resumes a new
// trainer from it and its optimizer state; nullptr (with a failure) on error.
std::unique_ptr<TrainingSession> save_and_resume(const TrainingSession& t, const std::string& name,
                                                 const TrainingOptions& o) {
  const std::string path = temp_path(name);
  Status saved = t.save(path);
  EXPECT_TRUE(saved.ok()) << saved.to_string();
  auto model = Model::load(path);
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  if (!saved.ok() || !model.ok()) return nullptr;
  auto resumed = trainer(*model, o);
  if (!resumed) return nullptr;
  Status restored = resumed->restore_optimizer(path);
  EXPECT_TRUE(restored.ok()) << restored.to_string();
  return restored.ok() ? std::move(resumed) : nullptr;
}

float train(TrainingSession& t, int steps, const Tensor& x, const Tensor& labels) {
  float loss = 0;
  for (int i = 0; i < steps; ++i) {
    auto l = t.train_step({x}, labels);
    EXPECT_TRUE(l.ok()) << l.status().to_string();
    loss = l.ok() ? *l : NAN;
  }
  return loss;
}

TEST(TrainSession, SgdMomentumAndAdamWReduceTheLoss) {
  Tensor x, labels;
  blobs(48, 7, x, labels);
  for (OptimizerKind kind : {OptimizerKind::kSgd, OptimizerKind::kAdamW}) {
    TrainingOptions o;
    o.optimizer.kind = kind;
    o.optimizer.learning_rate = kind == OptimizerKind::kSgd ? 0.1f : 0.01f;
    o.optimizer.momentum = 0.9f;
    o.optimizer.weight_decay = 1e-4f;
    auto t = trainer(mlp("mlp.mote"), o);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->trainable_names().size(), 4u);
    const float first = train(*t, 1, x, labels);
    const float last = train(*t, 60, x, labels);
    EXPECT_LT(last, 0.25f * first) << "optimizer " << static_cast<int>(kind) << ": " << first << " -> " << last;
    // evaluate() sees the trained parameters: every blob classified right.
    auto out = t->evaluate({x});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    const float* logits = (*out)[0].data<float>();
    int correct = 0;
    for (int i = 0; i < 48; ++i) {
      int best = 0;
      for (int k = 1; k < 3; ++k) best = logits[i * 3 + k] > logits[i * 3 + best] ? k : best;
      correct += best == i % 3;
    }
    EXPECT_EQ(correct, 48);
  }
}

// x [N, 6, 3] -> LSTM (batch first, hidden 8) -> Y_h [N, 1, 8] -> Flatten ->
// Gemm -> logits [N, 3]: training unrolls the LSTM into per-step ops
// (runtime/train/unroll_recurrent.cpp); evaluate() runs the LSTM kernel.
std::shared_ptr<const Model> lstm_classifier(const std::string& name) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {-1, 6, 3});
  int w = b.add_constant("lstm.W", random_tensor(DType::F32, {1, 32, 3}, 1, -0.4, 0.4));
  int r = b.add_constant("lstm.R", random_tensor(DType::F32, {1, 32, 8}, 2, -0.4, 0.4));
  int bias = b.add_constant("lstm.B", Tensor::zeros(DType::F32, {1, 64}));
  fb::RecurrentAttrsT a;
  a.hidden_size = 8;
  a.layout = 1;
  int h = b.add_op(fb::OpType::LSTM, {x, w, r, bias}, a, 2)[1];
  int flat = b.add_op(fb::OpType::Flatten, {h}, 1, "flatten")[0];
  int w2 = b.add_constant("fc.weight", random_tensor(DType::F32, {8, 3}, 3, -0.5, 0.5));
  int b2 = b.add_constant("fc.bias", Tensor::zeros(DType::F32, {3}));
  b.mark_output(b.add_op(fb::OpType::Gemm, {flat, w2, b2}, fb::GemmAttrsT{})[0], "logits");
  return load(b, name);
}

TEST(TrainSession, LstmTrainsUnrolledAndEvaluatesWithItsKernel) {
  // Class k: channel k rises over the sequence, the others stay flat.
  const int n = 24;
  Tensor x = random_tensor(DType::F32, {n, 6, 3}, 5, -0.2, 0.2);
  std::vector<int64_t> l(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    l[static_cast<size_t>(i)] = i % 3;
    for (int t = 0; t < 6; ++t) x.data<float>()[(i * 6 + t) * 3 + i % 3] += 0.2f * static_cast<float>(t);
  }
  Tensor labels = Tensor::from_vector<int64_t>({n}, l);
  TrainingOptions o;
  o.optimizer.kind = OptimizerKind::kAdamW;
  o.optimizer.learning_rate = 0.05f;
  auto t = trainer(lstm_classifier("lstm.mote"), o);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->trainable_names().size(), 5u);  // W, R, B of the LSTM and the head's two
  const float first = train(*t, 1, x, labels);
  const float last = train(*t, 80, x, labels);
  EXPECT_LT(last, 0.25f * first) << first << " -> " << last;
  auto out = t->evaluate({x});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  const float* logits = (*out)[0].data<float>();
  int correct = 0;
  for (int i = 0; i < n; ++i) {
    int best = 0;
    for (int k = 1; k < 3; ++k) best = logits[i * 3 + k] > logits[i * 3 + best] ? k : best;
    correct += best == i % 3;
  }
  EXPECT_EQ(correct, n);
}

// A model that computes its own per-sample NegativeLogLikelihoodLoss (as
// ONNX's SoftmaxCrossEntropyLoss converts: LogSoftmax, then the NLL op),
// trained by driving that output to zero with MSE: the NLL op trains as
// losses.hpp's nll_loss, and evaluate() runs its kernel on the trained weights.
TEST(TrainSession, ModelWithAnNllOpTrainsThroughIt) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {-1, 4});
  int target = b.add_input("target", DType::I64, {-1});
  int w = b.add_constant("fc.weight", random_tensor(DType::F32, {4, 3}, 1, -0.5, 0.5));
  int bias = b.add_constant("fc.bias", Tensor::zeros(DType::F32, {3}));
  int logits = b.add_op(fb::OpType::Gemm, {x, w, bias}, fb::GemmAttrsT{})[0];
  fb::AxisAttrsT classes;
  classes.axis = 1;
  int log_probs = b.add_op(fb::OpType::LogSoftmax, {logits}, classes)[0];
  fb::LossAttrsT per_sample;
  per_sample.reduction = fb::LossReduction::None;
  b.mark_output(b.add_op(fb::OpType::NegativeLogLikelihoodLoss, {log_probs, target}, per_sample)[0], "nll");
  Tensor xs, labels;
  blobs(24, 3, xs, labels);
  TrainingOptions o;
  o.loss = LossKind::kMse;
  o.optimizer.kind = OptimizerKind::kAdamW;
  o.optimizer.learning_rate = 0.05f;
  auto t = trainer(load(b, "nll.mote"), o);
  ASSERT_TRUE(t);
  const Tensor zeros = Tensor::zeros(DType::F32, {24});
  auto step = [&] {
    auto l = t->train_step({xs, labels}, zeros);
    EXPECT_TRUE(l.ok()) << l.status().to_string();
    return l.ok() ? *l : NAN;
  };
  const float first = step();
  float last = first;
  for (int i = 0; i < 60; ++i) last = step();
  EXPECT_LT(last, 0.1f * first) << first << " -> " << last;
  // The op's own kernel on the trained weights: every sample's NLL small.
  auto out = t->evaluate({xs, labels});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  for (int i = 0; i < 24; ++i) EXPECT_LT((*out)[0].data<float>()[i], 0.5f) << "sample " << i;
}

// Trains a model with fused ops and the same model with them split, in
// lockstep: the losses must agree at every step.
void expect_same_losses(std::shared_ptr<const Model> fused_model, std::shared_ptr<const Model> split_model,
                        const TrainingOptions& o, const Tensor& x, const Tensor& labels) {
  auto fused = trainer(std::move(fused_model), o);
  auto split = trainer(std::move(split_model), o);
  ASSERT_TRUE(fused && split);
  for (int i = 0; i < 5; ++i) {
    auto a = fused->train_step({x}, labels);
    auto b = split->train_step({x}, labels);
    ASSERT_TRUE(a.ok() && b.ok()) << (a.ok() ? b.status().to_string() : a.status().to_string());
    EXPECT_NEAR(*a, *b, 1e-5);
  }
}

TEST(TrainSession, FusedActivationTrainsLikeTheSplitOne) {
  Tensor x, labels;
  blobs(12, 8, x, labels);
  TrainingOptions o;
  o.optimizer.learning_rate = 0.05f;
  expect_same_losses(mlp("fused.mote", true), mlp("split.mote", false), o, x, labels);
}

// x [N,2,5,5] -> Conv + Relu -> h; Conv(h) + h -> Relu (a residual block,
// the Add and Relu fused into the Conv as mote-convert writes it, or as
// separate ops) -> GlobalAveragePool -> Flatten -> Gemm -> logits [N,3].
std::shared_ptr<const Model> residual_net(const std::string& name, bool fused) {
  GraphBuilder b;
  fb::ConvAttrsT same;
  same.pads = {1, 1, 1, 1};
  int x = b.add_input("x", DType::F32, {-1, 2, 5, 5});
  int w1 = b.add_constant("conv1.weight", random_tensor(DType::F32, {4, 2, 3, 3}, 3, -0.5, 0.5));
  int b1 = b.add_constant("conv1.bias", random_tensor(DType::F32, {4}, 4, -0.1, 0.1));
  int w2 = b.add_constant("conv2.weight", random_tensor(DType::F32, {4, 4, 3, 3}, 5, -0.5, 0.5));
  int b2 = b.add_constant("conv2.bias", random_tensor(DType::F32, {4}, 6, -0.1, 0.1));
  int w3 = b.add_constant("fc.weight", random_tensor(DType::F32, {4, 3}, 7, -0.5, 0.5));
  int b3 = b.add_constant("fc.bias", Tensor::zeros(DType::F32, {3}));
  int h = b.add_op(fb::OpType::Conv, {x, w1, b1}, same)[0];
  h = b.add_op(fb::OpType::Relu, {h}, 1, "relu1")[0];
  int y;
  if (fused) {
    y = b.add_op(fb::OpType::Conv, {h, w2, b2, h}, same)[0];
    b.last_op().fused = std::make_unique<fb::FusedActivationT>();
    b.last_op().fused->kind = fb::ActivationKind::Relu;
  } else {
    y = b.add_op(fb::OpType::Conv, {h, w2, b2}, same)[0];
    y = b.add_op(fb::OpType::Add, {y, h}, 1, "shortcut")[0];
    y = b.add_op(fb::OpType::Relu, {y}, 1, "relu2")[0];
  }
  int pooled = b.add_op(fb::OpType::GlobalAveragePool, {y}, 1, "pool")[0];
  int flat = b.add_op(fb::OpType::Flatten, {pooled}, 1, "flatten")[0];
  int logits = b.add_op(fb::OpType::Gemm, {flat, w3, b3}, fb::GemmAttrsT{})[0];
  b.mark_output(logits, "logits");
  return load(b, name);
}

TEST(TrainSession, FusedResidualTrainsLikeTheSplitOne) {
  Tensor x = random_tensor(DType::F32, {6, 2, 5, 5}, 30);
  std::vector<int64_t> l = {0, 1, 2, 0, 1, 2};
  Tensor labels = Tensor::from_vector<int64_t>({6}, l);
  TrainingOptions o;
  o.optimizer.learning_rate = 0.05f;
  expect_same_losses(residual_net("residual_fused.mote", true), residual_net("residual_split.mote", false), o, x,
                     labels);
}

// y = x W with MSE; the gradient and both optimizers are computed on the
// host in double and compared after three steps.
TEST(TrainSession, OptimizerUpdatesMatchHostFormulas) {
  const int n = 5, k = 3, m = 2;
  Tensor x = random_tensor(DType::F32, {n, k}, 20);
  Tensor target = random_tensor(DType::F32, {n, m}, 21);
  Tensor w0 = random_tensor(DType::F32, {k, m}, 22);
  GraphBuilder b;
  int xi = b.add_input("x", DType::F32, {n, k});
  int wi = b.add_constant("w", w0);
  b.mark_output(b.add_op(fb::OpType::MatMul, {xi, wi})[0], "y");
  auto model = load(b, "linear.mote");

  for (OptimizerKind kind : {OptimizerKind::kSgd, OptimizerKind::kAdamW}) {
    TrainingOptions o;
    o.loss = LossKind::kMse;
    o.optimizer = {.kind = kind, .learning_rate = 0.05f, .weight_decay = 0.1f, .momentum = 0.8f};
    o.schedule = {.kind = ScheduleKind::kStep, .step_size = 2, .gamma = 0.5f};
    auto t = trainer(model, o);
    ASSERT_TRUE(t);
    std::vector<double> w = w0.to_doubles(), s1(w.size(), 0.0), s2(w.size(), 0.0);
    const std::vector<double> xv = x.to_doubles(), tv = target.to_doubles();
    for (int step = 0; step < 3; ++step) {
      ASSERT_TRUE(t->train_step({x}, target).ok());
      std::vector<double> grad(w.size(), 0.0);
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < m; ++j) {
          double y = 0;
          for (int q = 0; q < k; ++q) y += xv[i * k + q] * w[q * m + j];
          const double dy = 2.0 * (y - tv[i * m + j]) / (n * m);
          for (int q = 0; q < k; ++q) grad[q * m + j] += xv[i * k + q] * dy;
        }
      }
      const double lr = 0.05 * std::pow(0.5, step / 2);
      for (size_t e = 0; e < w.size(); ++e) {
        if (kind == OptimizerKind::kSgd) {
          s1[e] = 0.8 * s1[e] + grad[e] + 0.1 * w[e];
          w[e] -= lr * s1[e];
        } else {
          w[e] *= 1.0 - lr * 0.1;
          s1[e] = 0.9 * s1[e] + 0.1 * grad[e];
          s2[e] = 0.999 * s2[e] + 0.001 * grad[e] * grad[e];
          const double m_hat = s1[e] / (1 - std::pow(0.9, step + 1)), v_hat = s2[e] / (1 - std::pow(0.999, step + 1));
          w[e] -= lr * m_hat / (std::sqrt(v_hat) + 1e-8);
        }
      }
    }
    const std::vector<double> got = t->parameter("w")->to_doubles();
    for (size_t e = 0; e < w.size(); ++e) EXPECT_NEAR(got[e], w[e], 2e-5) << "optimizer " << static_cast<int>(kind);
  }
}

TEST(TrainSession, Schedules) {
  ScheduleOptions constant;
  EXPECT_FLOAT_EQ(scheduled_learning_rate(0.1f, constant, 1000), 0.1f);
  ScheduleOptions step{.kind = ScheduleKind::kStep, .step_size = 10, .gamma = 0.5f};
  EXPECT_FLOAT_EQ(scheduled_learning_rate(0.1f, step, 9), 0.1f);
  EXPECT_FLOAT_EQ(scheduled_learning_rate(0.1f, step, 10), 0.05f);
  EXPECT_FLOAT_EQ(scheduled_learning_rate(0.1f, step, 25), 0.025f);
  ScheduleOptions cosine{.kind = ScheduleKind::kCosine, .warmup_steps = 10, .total_steps = 110, .min_lr = 0.01f};
  EXPECT_FLOAT_EQ(scheduled_learning_rate(1.0f, cosine, 0), 0.1f);
  EXPECT_FLOAT_EQ(scheduled_learning_rate(1.0f, cosine, 9), 1.0f);
  EXPECT_FLOAT_EQ(scheduled_learning_rate(1.0f, cosine, 10), 1.0f);
  EXPECT_NEAR(scheduled_learning_rate(1.0f, cosine, 60), 0.505f, 1e-6);
  EXPECT_FLOAT_EQ(scheduled_learning_rate(1.0f, cosine, 110), 0.01f);
  EXPECT_FLOAT_EQ(scheduled_learning_rate(1.0f, cosine, 500), 0.01f);
}

TEST(TrainSession, TrainableSelection) {
  auto model = mlp("select.mote");
  TrainingOptions o;
  o.trainable_regex = "bias$";
  auto t = trainer(model, o);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->trainable_names(), (std::vector<std::string>{"fc1.bias", "fc2.bias"}));
  o.trainable_regex.clear();
  o.trainable_after = "features";
  t = trainer(model, o);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->trainable_names(), (std::vector<std::string>{"fc2.weight", "fc2.bias"}));
  // Frozen weights stay as they were.
  Tensor x, labels;
  blobs(6, 3, x, labels);
  train(*t, 2, x, labels);
  o.trainable_after = "nope";
  EXPECT_FALSE(TrainingSession::create(model, o).ok());
}

TEST(TrainSession, SaveAndResumeEqualsUninterrupted) {
  Tensor x, labels;
  blobs(24, 9, x, labels);
  TrainingOptions o;
  o.optimizer = {.kind = OptimizerKind::kAdamW, .learning_rate = 0.01f, .weight_decay = 0.01f};
  o.schedule = {.kind = ScheduleKind::kCosine, .warmup_steps = 2, .total_steps = 8};
  auto straight = trainer(mlp("resume_base.mote"), o);
  auto first = trainer(mlp("resume_base.mote"), o);
  ASSERT_TRUE(straight && first);
  train(*straight, 6, x, labels);
  train(*first, 3, x, labels);
  auto resumed = save_and_resume(*first, "resume_ckpt.mote", o);
  ASSERT_TRUE(resumed);
  EXPECT_EQ(resumed->step(), 3);
  EXPECT_FLOAT_EQ(resumed->learning_rate(), first->learning_rate());
  train(*resumed, 3, x, labels);
  for (const std::string& name : straight->trainable_names()) {
    const std::vector<double> a = straight->parameter(name)->to_doubles();
    const std::vector<double> b = resumed->parameter(name)->to_doubles();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << name << "[" << i << "]";
  }
  // The saved model runs as an ordinary model with the trained weights.
  auto saved = Model::load(temp_path("resume_ckpt.mote"));
  ASSERT_TRUE(saved.ok()) << saved.status().to_string();
  auto session = Session::create(*saved, {.threads = 1});
  ASSERT_TRUE(session.ok());
  auto out = (*session)->run({x});
  auto expected = first->evaluate({x});
  ASSERT_TRUE(out.ok() && expected.ok());
  expect_tensors_near((*out)[0], (*expected)[0], 1e-6, 1e-6, "saved model output");
}

TEST(TrainSession, FailedSaveLeavesThePreviousFileIntact) {
  Tensor x, labels;
  blobs(12, 10, x, labels);
  auto t = trainer(mlp("atomic.mote"), {});
  ASSERT_TRUE(t);
  train(*t, 1, x, labels);
  const std::string path = temp_path("atomic_ckpt.mote");
  ASSERT_TRUE(t->save(path).ok());
  const std::vector<double> saved_weight = t->parameter("fc1.weight")->to_doubles();
  train(*t, 2, x, labels);

  // The temporary file cannot be created (a directory sits at its name):
  // the save fails before anything replaces `path`.
  const std::string blocker = path + ".tmp" + std::to_string(getpid());
  ASSERT_EQ(mkdir(blocker.c_str(), 0700), 0);
  EXPECT_FALSE(t->save(path).ok());
  rmdir(blocker.c_str());
  auto reloaded = Model::load(path);
  ASSERT_TRUE(reloaded.ok()) << reloaded.status().to_string();
  const int w = (*reloaded)->find_tensor("fc1.weight");
  const float* data = static_cast<const float*>((*reloaded)->tensor_data(w));
  for (size_t i = 0; i < saved_weight.size(); ++i) ASSERT_EQ(double{data[i]}, saved_weight[i]);

  // A directory that does not exist: an error naming the path.
  Status missing = t->save("/nonexistent_mote_dir/model.mote");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("/nonexistent_mote_dir/model.mote"), std::string::npos) << missing.message();
}

// x [N,3] -> Gemm(fc.weight, fc.bias) -> BatchNormalization (momentum 0.8) -> [N,4].
std::shared_ptr<const Model> gemm_batch_norm(const std::string& name) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {-1, 3});
  int w = b.add_constant("fc.weight", random_tensor(DType::F32, {3, 4}, 11, -1.0, 1.0));
  int bias = b.add_constant("fc.bias", random_tensor(DType::F32, {4}, 12, -0.5, 0.5));
  int scale = b.add_constant("bn.scale", random_tensor(DType::F32, {4}, 13, 0.5, 1.5));
  int shift = b.add_constant("bn.bias", random_tensor(DType::F32, {4}, 14, -0.5, 0.5));
  int mean = b.add_constant("bn.running_mean", random_tensor(DType::F32, {4}, 15, -0.5, 0.5));
  int var = b.add_constant("bn.running_var", random_tensor(DType::F32, {4}, 16, 0.5, 1.5));
  int h = b.add_op(fb::OpType::Gemm, {x, w, bias}, fb::GemmAttrsT{})[0];
  fb::NormAttrsT bn;
  bn.momentum = 0.8f;
  bn.epsilon = 1e-3f;
  int y = b.add_op(fb::OpType::BatchNormalization, {h, scale, shift, mean, var}, bn)[0];
  b.mark_output(y, "y");
  return load(b, name);
}

// The model's Gemm output on the host, in double: h[n][j].
std::vector<double> host_gemm(const Tensor& x, const Tensor& w, const Tensor& bias) {
  const int64_t n = x.shape()[0];
  std::vector<double> xs = x.to_doubles(), ws = w.to_doubles(), bs = bias.to_doubles(), h(static_cast<size_t>(n * 4));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < 4; ++j) {
      double sum = bs[static_cast<size_t>(j)];
      for (int64_t k = 0; k < 3; ++k) sum += xs[static_cast<size_t>(i * 3 + k)] * ws[static_cast<size_t>(k * 4 + j)];
      h[static_cast<size_t>(i * 4 + j)] = sum;
    }
  }
  return h;
}

std::vector<double> saved_constant(const Model& model, const std::string& name) {
  const int t = model.find_tensor(name);
  EXPECT_GE(t, 0) << name;
  if (t < 0 || !model.tensor_data(t)) return {};
  const fb::TensorT& info = *model.graph().tensors[static_cast<size_t>(t)];
  return Tensor::borrow(info.dtype, info.shape, model.tensor_data(t)).to_doubles();
}

TEST(TrainSession, BatchNormRunningStatisticsFollowTheMomentumRule) {
  auto model = gemm_batch_norm("bn.mote");
  TrainingOptions o;
  o.loss = LossKind::kMse;
  o.optimizer.learning_rate = 0.05f;
  auto t = trainer(model, o);
  ASSERT_TRUE(t);
  // Scale and B train; the running statistics are state, not parameters.
  std::vector<std::string> names = t->trainable_names();
  EXPECT_EQ(names, (std::vector<std::string>{"fc.weight", "fc.bias", "bn.scale", "bn.bias"}));

  // Host copy of the running statistics, updated from each step's batch
  // (ONNX: the biased batch variance) before that step's parameter update.
  std::vector<double> mean = saved_constant(*model, "bn.running_mean"), var = saved_constant(*model, "bn.running_var");
  const int steps = 4, n = 6;
  for (int s = 0; s < steps; ++s) {
    Tensor x = random_tensor(DType::F32, {n, 3}, 100 + s, -1.0, 1.0);
    Tensor target = random_tensor(DType::F32, {n, 4}, 200 + s, -1.0, 1.0);
    const std::vector<double> h = host_gemm(x, *t->parameter("fc.weight"), *t->parameter("fc.bias"));
    for (size_t j = 0; j < 4; ++j) {
      double m = 0, v = 0;
      for (int i = 0; i < n; ++i) m += h[static_cast<size_t>(i) * 4 + j] / n;
      for (int i = 0; i < n; ++i) v += (h[static_cast<size_t>(i) * 4 + j] - m) * (h[static_cast<size_t>(i) * 4 + j] - m) / n;
      mean[j] = mean[j] * 0.8 + m * 0.2;
      var[j] = var[j] * 0.8 + v * 0.2;
    }
    auto loss = t->train_step({x}, target);
    ASSERT_TRUE(loss.ok()) << loss.status().to_string();
  }

  // save() writes the updated statistics into the model.
  const std::string path = temp_path("bn_trained.mote");
  ASSERT_TRUE(t->save(path).ok());
  auto saved = Model::load(path);
  ASSERT_TRUE(saved.ok()) << saved.status().to_string();
  const std::vector<double> saved_mean = saved_constant(**saved, "bn.running_mean");
  const std::vector<double> saved_var = saved_constant(**saved, "bn.running_var");
  ASSERT_EQ(saved_mean.size(), 4u);
  ASSERT_EQ(saved_var.size(), 4u);
  const std::vector<double> initial_mean = saved_constant(*model, "bn.running_mean");
  for (size_t j = 0; j < 4; ++j) {
    EXPECT_NEAR(saved_mean[j], mean[j], 1e-5) << "running_mean[" << j << "]";
    EXPECT_NEAR(saved_var[j], var[j], 1e-5) << "running_var[" << j << "]";
    EXPECT_GT(std::abs(saved_mean[j] - initial_mean[j]), 1e-4) << "running_mean[" << j << "] was not updated";
  }

  // evaluate() and the saved model run in inference mode on those statistics.
  Tensor x = random_tensor(DType::F32, {3, 3}, 300, -1.0, 1.0);
  const std::vector<double> h = host_gemm(x, *t->parameter("fc.weight"), *t->parameter("fc.bias"));
  const std::vector<double> scale = t->parameter("bn.scale")->to_doubles(), shift = t->parameter("bn.bias")->to_doubles();
  std::vector<double> expected(h.size());
  for (size_t i = 0; i < h.size(); ++i) {
    const size_t j = i % 4;
    expected[i] = (h[i] - mean[j]) / std::sqrt(var[j] + 1e-3) * scale[j] + shift[j];
  }
  auto evaluated = t->evaluate({x});
  ASSERT_TRUE(evaluated.ok()) << evaluated.status().to_string();
  auto session = Session::create(*saved, {.threads = 1});
  ASSERT_TRUE(session.ok()) << session.status().to_string();
  auto ran = (*session)->run({x});
  ASSERT_TRUE(ran.ok()) << ran.status().to_string();
  const std::vector<double> got = (*evaluated)[0].to_doubles(), got_saved = (*ran)[0].to_doubles();
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(got[i], expected[i], 1e-4) << "evaluate()[" << i << "]";
    EXPECT_NEAR(got_saved[i], expected[i], 1e-4) << "saved model[" << i << "]";
  }
}

// x [N,4] -> Gemm -> Relu -> Dropout(ratio, seed) -> Gemm -> logits [N,3].
std::shared_ptr<const Model> mlp_dropout(const std::string& name, int64_t seed) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {-1, 4});
  int w1 = b.add_constant("fc1.weight", random_tensor(DType::F32, {4, 16}, 1, -0.5, 0.5));
  int b1 = b.add_constant("fc1.bias", random_tensor(DType::F32, {16}, 3, 0.1, 0.3));
  int w2 = b.add_constant("fc2.weight", random_tensor(DType::F32, {16, 3}, 2, -0.5, 0.5));
  int b2 = b.add_constant("fc2.bias", Tensor::zeros(DType::F32, {3}));
  int h = b.add_op(fb::OpType::Relu, {b.add_op(fb::OpType::Gemm, {x, w1, b1}, fb::GemmAttrsT{})[0]}, 1, "relu")[0];
  fb::DropoutAttrsT d;
  d.ratio = 0.5f;
  d.seed = seed;
  h = b.add_op(fb::OpType::Dropout, {h}, d)[0];
  b.mark_output(b.add_op(fb::OpType::Gemm, {h, w2, b2}, fb::GemmAttrsT{})[0], "logits");
  return load(b, name);
}

TEST(TrainSession, DropoutMasksFollowSeedAndStepAndResume) {
  Tensor x, labels;
  blobs(24, 12, x, labels);
  TrainingOptions o;
  o.optimizer.learning_rate = 0.05f;
  auto a = trainer(mlp_dropout("dropout_a.mote", 5), o);
  auto same = trainer(mlp_dropout("dropout_same.mote", 5), o);
  auto other = trainer(mlp_dropout("dropout_other.mote", 6), o);
  ASSERT_TRUE(a && same && other);
  // Same seed and step: the same masks, hence the same losses; another seed
  // drops other units of the same initial network.
  const float la = train(*a, 1, x, labels), ls = train(*same, 1, x, labels), lo = train(*other, 1, x, labels);
  EXPECT_EQ(la, ls);
  EXPECT_NE(la, lo);
  // Each step draws a new mask: with the parameters frozen (lr 0) the loss
  // still changes from step to step.
  TrainingOptions frozen = o;
  frozen.optimizer.learning_rate = 0.0f;
  auto f = trainer(mlp_dropout("dropout_frozen.mote", 5), frozen);
  ASSERT_TRUE(f);
  EXPECT_NE(train(*f, 1, x, labels), train(*f, 1, x, labels));

  // A resumed run redraws the masks of the uninterrupted one.
  train(*a, 2, x, labels);
  auto resumed = save_and_resume(*same, "dropout_ckpt.mote", o);
  ASSERT_TRUE(resumed);
  train(*resumed, 2, x, labels);
  for (const std::string& name : a->trainable_names()) {
    EXPECT_EQ(a->parameter(name)->to_doubles(), resumed->parameter(name)->to_doubles()) << name;
  }

  // evaluate() runs Dropout in inference mode, the identity: the saved model
  // (whose Dropout has training_mode 0) gives the same outputs.
  auto evaluated = resumed->evaluate({x});
  const std::string path = temp_path("dropout_resumed.mote");
  ASSERT_TRUE(resumed->save(path).ok());
  auto reloaded = Model::load(path);
  ASSERT_TRUE(reloaded.ok() && evaluated.ok());
  auto session = Session::create(*reloaded, {.threads = 1});
  ASSERT_TRUE(session.ok());
  auto out = (*session)->run({x});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  expect_tensors_near((*evaluated)[0], (*out)[0], 0.0, 0.0, "evaluate() with Dropout");
}

TEST(TrainSession, DropoutAndBatchNormTrainOnVulkanLikeOnTheCpu) {
  // Where a Vulkan device exists (lavapipe in CI), Dropout's shader redraws
  // the CPU's masks from the step input fed each run, and the BatchNorm
  // model's GPU ops match: the losses of both backends agree step by step.
  Tensor x, labels;
  blobs(24, 13, x, labels);
  Tensor target = random_tensor(DType::F32, {24, 4}, 14, -1.0, 1.0);
  Tensor x3 = random_tensor(DType::F32, {24, 3}, 15, -1.0, 1.0);
  for (bool batch_norm : {false, true}) {
    TrainingOptions o;
    o.optimizer.learning_rate = 0.05f;
    if (batch_norm) o.loss = LossKind::kMse;
    TrainingOptions vk = o;
    vk.session.backend = Backend::kVulkan;
    vk.session.min_gpu_island_elements = 0;
    auto model = batch_norm ? gemm_batch_norm("vk_bn.mote") : mlp_dropout("vk_dropout.mote", 21);
    auto cpu = trainer(model, o);
    auto gpu = trainer(model, vk);
    ASSERT_TRUE(cpu && gpu);
    for (int step = 0; step < 3; ++step) {
      auto a = batch_norm ? cpu->train_step({x3}, target) : cpu->train_step({x}, labels);
      auto b = batch_norm ? gpu->train_step({x3}, target) : gpu->train_step({x}, labels);
      ASSERT_TRUE(a.ok() && b.ok()) << a.status().to_string() << " / " << b.status().to_string();
      EXPECT_NEAR(*a, *b, 1e-4 * (1.0 + std::abs(*a))) << (batch_norm ? "BatchNorm" : "Dropout") << " step " << step;
    }
    // Training-mode BatchNormalization itself runs on the CPU (its Vulkan
    // kernel takes inference mode only); Dropout runs on the GPU when one exists.
    const std::vector<OpPlacement> placement = gpu->train_placement();
    const bool any_gpu = std::any_of(placement.begin(), placement.end(),
                                     [](const OpPlacement& p) { return p.device == "vulkan"; });
    for (const OpPlacement& p : placement) {
      if (any_gpu && p.op.rfind("Dropout", 0) == 0 && p.device != "vulkan") {
        ADD_FAILURE() << p.op << " on " << p.device << ": " << p.reason;
      }
    }
  }
}

TEST(TrainSession, ClearErrors) {
  auto t = trainer(mlp("errors.mote"), {});
  ASSERT_TRUE(t);
  Tensor x = random_tensor(DType::F32, {4, 4}, 1);
  auto bad_labels = t->train_step({x}, Tensor::from_vector<int64_t>({3}, {0, 1, 2}));
  ASSERT_FALSE(bad_labels.ok());
  EXPECT_NE(bad_labels.status().message().find("labels"), std::string::npos) << bad_labels.status().message();
  EXPECT_FALSE(t->train_step({}, Tensor::from_vector<int64_t>({4}, {0, 1, 2, 0})).ok());
}

}  // namespace
}  // namespace mote::test
