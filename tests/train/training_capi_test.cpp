// The C API's trainer (mote_trainer_*) against the C++ TrainingSession it
// wraps: the same options spelled as C strings must give the same losses and
// the same saved weights, bit for bit (one thread each); and the error paths
// return codes and messages instead of crashing.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "mote/graph_builder.hpp"
#include "mote/mote.h"
#include "mote/training.hpp"
#include "tests/support/op_test_util.hpp"
#include "tests/support/temp_dir.hpp"

namespace mote::test {
namespace {

std::string temp_path(const std::string& name) {
  return process_temp_dir().file(name);
}

// x [8,5] -> Gemm -> Tanh -> Gemm -> logits [8,3].
std::string save_mlp() {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {8, 5});
  int w1 = b.add_constant("fc1.weight", random_tensor(DType::F32, {5, 7}, 11, -0.6, 0.6));
  int b1 = b.add_constant("fc1.bias", random_tensor(DType::F32, {7}, 12, -0.1, 0.1));
  int w2 = b.add_constant("fc2.weight", random_tensor(DType::F32, {7, 3}, 13, -0.6, 0.6));
  int h = b.add_op(fb::OpType::Gemm, {x, w1, b1}, fb::GemmAttrsT{})[0];
  h = b.add_op(fb::OpType::Tanh, {h})[0];
  b.mark_output(b.add_op(fb::OpType::MatMul, {h, w2})[0], "logits");
  const std::string path = temp_path("mlp.mote");
  EXPECT_TRUE(b.save(path).ok());
  return path;
}

struct Batch {
  Tensor x = random_tensor(DType::F32, {8, 5}, 21, -1.0, 1.0);
  Tensor labels = Tensor::from_vector<int64_t>({8}, {0, 1, 2, 0, 1, 2, 1, 0});
};

mote_tensor* c_tensor(const Tensor& t, mote_dtype dtype) {
  mote_tensor* handle = nullptr;
  std::vector<int64_t> dims(t.shape().begin(), t.shape().end());
  EXPECT_EQ(mote_tensor_create(dtype, dims.data(), dims.size(), t.raw(), t.bytes(), &handle), MOTE_OK)
      << mote_last_error();
  return handle;
}

std::vector<float> read_floats(const std::string& path, const std::string& tensor) {
  auto model = Model::load(path);
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  if (!model.ok()) return {};
  const int t = (*model)->find_tensor(tensor);
  EXPECT_GE(t, 0) << tensor;
  if (t < 0) return {};
  const auto* data = static_cast<const float*>((*model)->tensor_data(t));
  const int64_t n = shape_numel((*model)->graph().tensors[static_cast<size_t>(t)]->shape);
  return {data, data + n};
}

TEST(TrainCApi, MatchesTheCppTrainerBitForBit) {
  const std::string model_path = save_mlp();
  const Batch batch;
  constexpr int kSteps = 4;

  // C++: AdamW with weight decay, cosine schedule with warm-up.
  TrainingOptions cpp;
  cpp.optimizer = {.kind = OptimizerKind::kAdamW, .learning_rate = 0.05f, .weight_decay = 0.01f};
  cpp.schedule = {.kind = ScheduleKind::kCosine, .warmup_steps = 1, .total_steps = kSteps};
  cpp.session.threads = 1;
  auto model = Model::load(model_path);
  ASSERT_TRUE(model.ok());
  auto trainer = TrainingSession::create(*model, cpp);
  ASSERT_TRUE(trainer.ok()) << trainer.status().to_string();
  std::vector<float> cpp_losses;
  for (int i = 0; i < kSteps; ++i) {
    auto loss = (*trainer)->train_step({batch.x}, batch.labels);
    ASSERT_TRUE(loss.ok()) << loss.status().to_string();
    cpp_losses.push_back(*loss);
  }
  const std::string cpp_out = temp_path("cpp.mote");
  ASSERT_TRUE((*trainer)->save(cpp_out).ok());

  // C: the same, spelled as strings.
  mote_model* c_model = nullptr;
  ASSERT_EQ(mote_model_load(model_path.c_str(), &c_model), MOTE_OK) << mote_last_error();
  mote_training_options o;
  ASSERT_EQ(mote_training_options_init(&o), MOTE_OK);
  o.optimizer = "adamw";
  o.learning_rate = 0.05f;
  o.weight_decay = 0.01f;
  o.schedule = "cosine";
  o.warmup_steps = 1;
  o.total_steps = kSteps;
  o.threads = 1;
  mote_trainer* c_trainer = nullptr;
  ASSERT_EQ(mote_trainer_create(c_model, &o, &c_trainer), MOTE_OK) << mote_last_error();
  mote_model_release(c_model);  // the trainer keeps what it needs
  mote_tensor* x = c_tensor(batch.x, MOTE_F32);
  mote_tensor* labels = c_tensor(batch.labels, MOTE_I64);
  for (int i = 0; i < kSteps; ++i) {
    float loss = NAN;
    ASSERT_EQ(mote_trainer_train_step(c_trainer, &x, 1, labels, &loss), MOTE_OK) << mote_last_error();
    EXPECT_EQ(loss, cpp_losses[static_cast<size_t>(i)]) << "step " << i;
  }
  EXPECT_LT(cpp_losses.back(), cpp_losses.front());
  int64_t steps = 0;
  ASSERT_EQ(mote_trainer_step_count(c_trainer, &steps), MOTE_OK);
  EXPECT_EQ(steps, kSteps);

  // evaluate() gives logits of the trained weights; they differ from the
  // untrained model's (the step really changed something).
  mote_tensor* logits = nullptr;
  ASSERT_EQ(mote_trainer_evaluate(c_trainer, &x, 1, &logits, 1), MOTE_OK) << mote_last_error();
  auto trained_logits = (*trainer)->evaluate({batch.x});
  ASSERT_TRUE(trained_logits.ok());
  const void* data = nullptr;
  ASSERT_EQ(mote_tensor_data(logits, &data), MOTE_OK);
  EXPECT_EQ(std::memcmp(data, (*trained_logits)[0].raw(), (*trained_logits)[0].bytes()), 0);
  mote_tensor_release(logits);

  const std::string c_out = temp_path("c.mote");
  ASSERT_EQ(mote_trainer_save(c_trainer, c_out.c_str()), MOTE_OK) << mote_last_error();
  for (const char* name : {"fc1.weight", "fc1.bias", "fc2.weight"}) {
    EXPECT_EQ(read_floats(c_out, name), read_floats(cpp_out, name)) << name;
  }

  // Resuming from the C save continues the step count.
  mote_model* saved = nullptr;
  ASSERT_EQ(mote_model_load(c_out.c_str(), &saved), MOTE_OK) << mote_last_error();
  mote_trainer* resumed = nullptr;
  ASSERT_EQ(mote_trainer_create(saved, &o, &resumed), MOTE_OK) << mote_last_error();
  ASSERT_EQ(mote_trainer_restore_optimizer(resumed, c_out.c_str()), MOTE_OK) << mote_last_error();
  ASSERT_EQ(mote_trainer_step_count(resumed, &steps), MOTE_OK);
  EXPECT_EQ(steps, kSteps);

  mote_trainer_release(resumed);
  mote_model_release(saved);
  mote_tensor_release(x);
  mote_tensor_release(labels);
  mote_trainer_release(c_trainer);
}

TEST(TrainCApi, ErrorsAreCodesWithMessages) {
  const std::string model_path = save_mlp();
  mote_model* model = nullptr;
  ASSERT_EQ(mote_model_load(model_path.c_str(), &model), MOTE_OK);
  mote_training_options o;
  ASSERT_EQ(mote_training_options_init(&o), MOTE_OK);
  mote_trainer* trainer = nullptr;

  o.loss = "hinge";
  EXPECT_EQ(mote_trainer_create(model, &o, &trainer), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mote_last_error()).find("unknown loss 'hinge'"), std::string::npos) << mote_last_error();
  EXPECT_EQ(trainer, nullptr);
  o.loss = "softmax_cross_entropy";
  o.schedule = "linear";
  EXPECT_EQ(mote_trainer_create(model, &o, &trainer), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mote_last_error()).find("cosine"), std::string::npos) << mote_last_error();
  o.schedule = "constant";
  o.struct_size = 8;
  EXPECT_EQ(mote_trainer_create(model, &o, &trainer), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mote_last_error()).find("mote_training_options_init"), std::string::npos);
  o.struct_size = sizeof(o);
  o.trainable_regex = "no_such_weight";
  EXPECT_NE(mote_trainer_create(model, &o, &trainer), MOTE_OK);
  EXPECT_EQ(trainer, nullptr);
  o.trainable_regex = nullptr;

  ASSERT_EQ(mote_trainer_create(model, nullptr, &trainer), MOTE_OK) << mote_last_error();
  const Batch batch;
  mote_tensor* x = c_tensor(batch.x, MOTE_F32);
  float loss = 0;
  EXPECT_EQ(mote_trainer_train_step(trainer, &x, 1, nullptr, &loss), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mote_last_error()).find("labels is NULL"), std::string::npos);
  mote_tensor* bad_labels = c_tensor(Tensor::from_vector<int64_t>({3}, {0, 1, 2}), MOTE_I64);
  EXPECT_NE(mote_trainer_train_step(trainer, &x, 1, bad_labels, &loss), MOTE_OK);
  EXPECT_STRNE(mote_last_error(), "");
  mote_tensor* outputs[2] = {nullptr, nullptr};
  EXPECT_EQ(mote_trainer_evaluate(trainer, &x, 1, outputs, 2), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(outputs[0], nullptr);
  EXPECT_NE(mote_trainer_save(trainer, "/nonexistent_dir/out.mote"), MOTE_OK);
  EXPECT_NE(std::string(mote_last_error()).find("/nonexistent_dir/out.mote"), std::string::npos) << mote_last_error();
  EXPECT_EQ(mote_trainer_save(nullptr, "x.mote"), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(mote_trainer_restore_optimizer(trainer, "/nonexistent_dir/out.mote"), MOTE_OK);
  EXPECT_NE(std::string(mote_last_error()).find("/nonexistent_dir/out.mote"), std::string::npos) << mote_last_error();

  mote_tensor_release(bad_labels);
  mote_tensor_release(x);
  mote_trainer_release(trainer);
  mote_model_release(model);
}

}  // namespace
}  // namespace mote::test
