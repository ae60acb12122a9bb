// Gradient checkpointing: recomputing forward segments in the backward pass
// must give the same training run as keeping every intermediate (the
// reference), while planning less memory for the intermediates.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "mote/graph_builder.hpp"
#include "mote/training.hpp"
#include "tests/support/op_test_util.hpp"
#include "tests/support/temp_dir.hpp"

namespace mote::test {
namespace {

constexpr int kBatch = 128, kWidth = 48, kLayers = 6;

// x [128, 48] -> 6 x (Gemm 48 + Tanh) -> Gemm 4: deep enough that the
// activations kept for the backward pass dominate the arena.
std::shared_ptr<const Model> deep_mlp() {
  GraphBuilder b;
  int h = b.add_input("x", DType::F32, {kBatch, kWidth});
  for (int l = 0; l < kLayers; ++l) {
    const std::string name = "fc" + std::to_string(l);
    int w = b.add_constant(name + ".weight", random_tensor(DType::F32, {kWidth, kWidth}, 10 + l, -0.2, 0.2));
    int bias = b.add_constant(name + ".bias", random_tensor(DType::F32, {kWidth}, 30 + l, -0.1, 0.1));
    h = b.add_op(fb::OpType::Gemm, {h, w, bias}, fb::GemmAttrsT{})[0];
    h = b.add_op(fb::OpType::Tanh, {h})[0];
    b.set_tensor_name(h, "act" + std::to_string(l));
  }
  int w = b.add_constant("head.weight", random_tensor(DType::F32, {kWidth, 4}, 50, -0.2, 0.2));
  b.mark_output(b.add_op(fb::OpType::MatMul, {h, w})[0], "logits");
  const std::string path = process_temp_dir().file("checkpoint_mlp.mote");
  EXPECT_TRUE(b.save(path).ok());
  auto model = Model::load(path);
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  return *model;
}

struct TrainRun {
  std::vector<float> losses;
  std::vector<Tensor> params;
  uint64_t arena_bytes = 0;
  int ops = 0;
};

TrainRun train(const std::shared_ptr<const Model>& model, TrainingOptions o) {
  o.optimizer = {.kind = OptimizerKind::kSgd, .learning_rate = 0.05f, .weight_decay = 1e-3f, .momentum = 0.9f};
  o.session.threads = 1;
  auto t = TrainingSession::create(model, o);
  EXPECT_TRUE(t.ok()) << t.status().to_string();
  TrainRun run;
  if (!t.ok()) return run;
  const Tensor x = random_tensor(DType::F32, {kBatch, kWidth}, 7, -1.0, 1.0);
  std::vector<int64_t> labels;
  for (int i = 0; i < kBatch; ++i) labels.push_back(i % 4);
  const Tensor y = Tensor::from_vector<int64_t>({kBatch}, labels);
  for (int step = 0; step < 3; ++step) {
    auto loss = (*t)->train_step({x}, y);
    EXPECT_TRUE(loss.ok()) << loss.status().to_string();
    run.losses.push_back(loss.ok() ? *loss : NAN);
  }
  for (const auto& name : (*t)->trainable_names()) run.params.push_back((*t)->parameter(name)->clone());
  run.arena_bytes = (*t)->train_plan_stats().arena_bytes;
  run.ops = (*t)->train_plan_stats().ops_total;
  return run;
}

void expect_same_training(const TrainRun& got, const TrainRun& want, const char* what) {
  ASSERT_EQ(got.losses.size(), want.losses.size());
  for (size_t i = 0; i < want.losses.size(); ++i) EXPECT_NEAR(got.losses[i], want.losses[i], 1e-6) << what;
  ASSERT_EQ(got.params.size(), want.params.size());
  for (size_t p = 0; p < want.params.size(); ++p) {
    const std::vector<double> a = got.params[p].to_doubles(), b = want.params[p].to_doubles();
    for (size_t i = 0; i < b.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-6) << what << ": parameter " << p << "[" << i << "]";
  }
}

TEST(TrainCheckpointing, RecomputedSegmentsTrainIdenticallyInLessMemory) {
  const auto model = deep_mlp();
  const TrainRun plain = train(model, {});

  TrainingOptions every;
  every.checkpoint_every = 4;  // Gemm + Tanh pairs: a segment per two layers
  const TrainRun by_count = train(model, every);
  expect_same_training(by_count, plain, "checkpoint_every 4");

  TrainingOptions named;
  named.checkpoints = {"act1", "act3"};
  const TrainRun by_name = train(model, named);
  expect_same_training(by_name, plain, "checkpoints act1, act3");

  std::printf("deep MLP training step arena: %llu bytes plain (%d ops), %llu every 4 ops (%d ops), %llu at act1/act3 (%d ops)\n",
              static_cast<unsigned long long>(plain.arena_bytes), plain.ops,
              static_cast<unsigned long long>(by_count.arena_bytes), by_count.ops,
              static_cast<unsigned long long>(by_name.arena_bytes), by_name.ops);
  // Recomputation adds ops and must save memory, or it is pointless.
  EXPECT_GT(by_count.ops, plain.ops);
  EXPECT_LT(by_count.arena_bytes, plain.arena_bytes);
  EXPECT_LT(by_name.arena_bytes, plain.arena_bytes);
}

TEST(TrainCheckpointing, UnknownCheckpointIsAnError) {
  TrainingOptions o;
  o.checkpoints = {"no_such_tensor"};
  auto t = TrainingSession::create(deep_mlp(), o);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("no_such_tensor"), std::string::npos) << t.status().to_string();
}

}  // namespace
}  // namespace mote::test
