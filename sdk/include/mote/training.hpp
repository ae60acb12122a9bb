// On-device training. A TrainingSession turns a loaded model into a training
// model built from ordinary ops (forward graph, loss, backward graph from
// per-op gradient builders, optimizer update) and runs it with a Session, so
// it plans, runs and places ops like inference does.
//
//   auto model = mote::Model::load("mlp.mote");
//   mote::TrainingOptions opts;
//   opts.loss = mote::LossKind::kSoftmaxCrossEntropy;
//   opts.optimizer = {.kind = mote::OptimizerKind::kAdamW, .learning_rate = 1e-3f};
//   auto trainer = mote::TrainingSession::create(*model, opts);
//   auto loss = (*trainer)->train_step({images}, labels);
//   MOTE_RETURN_IF_ERROR((*trainer)->save("mlp-tuned.mote"));  // + "mlp-tuned.mote.optimizer"
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mote/export.hpp"
#include "mote/model.hpp"
#include "mote/session.hpp"
#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

enum class LossKind {
  // Model output: logits [N, C]; labels: class indices [N] (i64 or i32).
  kSoftmaxCrossEntropy,
  // Mean squared error; labels: f32 of the output's shape.
  kMse,
  // Binary cross-entropy on logits; labels: f32 targets in [0, 1], output's shape.
  kBceWithLogits,
};

enum class OptimizerKind { kSgd, kAdamW };

struct OptimizerOptions {
  OptimizerKind kind = OptimizerKind::kSgd;
  float learning_rate = 0.01f;
  // SGD: L2 penalty added to the gradient. AdamW: decoupled decay p -= lr * wd * p.
  float weight_decay = 0.0f;
  float momentum = 0.0f;  // SGD
  float beta1 = 0.9f;     // AdamW
  float beta2 = 0.999f;
  float epsilon = 1e-8f;
};

enum class ScheduleKind {
  kConstant,
  kStep,    // lr * gamma^(floor(step / step_size))
  kCosine,  // from lr down to min_lr over total_steps, half a cosine
};

// The learning rate per step. A linear warm-up (from lr / warmup_steps up to
// lr) precedes any of them when warmup_steps > 0.
struct ScheduleOptions {
  ScheduleKind kind = ScheduleKind::kConstant;
  int64_t warmup_steps = 0;
  int64_t step_size = 1000;  // kStep
  float gamma = 0.1f;        // kStep
  int64_t total_steps = 0;   // kCosine, warm-up included
  float min_lr = 0.0f;       // kCosine
};

// The learning rate of step `step` (0-based) for a base rate and schedule.
MOTE_API float scheduled_learning_rate(float base, const ScheduleOptions& schedule, int64_t step);

// The names command lines and the C API use: "softmax_cross_entropy", "mse",
// "bce_with_logits"; "sgd", "adamw"; "constant", "step", "cosine".
MOTE_API Result<LossKind> parse_loss_kind(const std::string& name);
MOTE_API Result<OptimizerKind> parse_optimizer_kind(const std::string& name);
MOTE_API Result<ScheduleKind> parse_schedule_kind(const std::string& name);

struct TrainingOptions {
  // Which constants are trained. By default every f32 constant of rank >= 1;
  // `trainable_regex` narrows that to names matching it (std::regex_search);
  // `trainable_after` to constants read by ops downstream of the named tensor
  // (fine-tuning the head of a network).
  std::string trainable_regex;
  std::string trainable_after;
  LossKind loss = LossKind::kSoftmaxCrossEntropy;
  // The model output the loss reads; empty: the first output.
  std::string output;
  OptimizerOptions optimizer;
  ScheduleOptions schedule;
  // Gradient checkpointing: the forward pass is cut into segments, after the
  // tensors named in `checkpoints` or after every `checkpoint_every` forward
  // ops; every segment but the last is computed a second time during the
  // backward pass instead of keeping its intermediates alive until then.
  // Less memory (train_plan_stats().arena_bytes), more time. Both empty/0: off.
  std::vector<std::string> checkpoints;
  int checkpoint_every = 0;
  // Backend, threads... of the inner sessions.
  SessionOptions session;
};

class MOTE_API TrainingSession {
 public:
  static Result<std::unique_ptr<TrainingSession>> create(std::shared_ptr<const Model> model,
                                                         TrainingOptions options = {});
  ~TrainingSession();
  TrainingSession(const TrainingSession&) = delete;
  TrainingSession& operator=(const TrainingSession&) = delete;

  // One optimisation step on a batch: inputs in the model's input order.
  // Returns the batch's loss (before the update).
  Result<float> train_step(const std::vector<Tensor>& inputs, const Tensor& labels);
  // The model's outputs with the current parameters.
  Result<std::vector<Tensor>> evaluate(const std::vector<Tensor>& inputs);

  // Writes the model with the trained parameters to `path`, and the optimizer
  // state (step count and per-parameter state) to `path + ".optimizer"`. Each
  // file is written atomically: a failed save leaves the previous file intact.
  Status save(const std::string& path) const;
  // Reads `path + ".optimizer"` written by save(), so training continues
  // exactly where it stopped. Create this session from the model at `path`.
  Status restore_optimizer(const std::string& path);

  int64_t step() const;
  // The learning rate the next step will use.
  float learning_rate() const;
  std::vector<std::string> trainable_names() const;
  // The current value of a trained parameter; nullptr for an unknown name.
  const Tensor* parameter(const std::string& name) const;

  // The training step's plan (arena bytes, ops on the GPU, ...) and where
  // each of its ops runs; empty until the first train_step().
  PlanStats train_plan_stats() const;
  std::vector<OpPlacement> train_placement() const;
  // Per-op times of the last train_step() when TrainingOptions::session.profile is set.
  std::vector<OpTime> train_profile() const;

 private:
  TrainingSession();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mote
