// The training model: forward graph (trainable constants as inputs), loss,
// backward graph and optimizer update, as one .mote built for one set of
// input shapes. Its interface:
//   inputs:  the model's inputs, the parameters, the running statistics,
//            "step" (i64 scalar) when the model has Dropout, "labels", "learning_rate", for AdamW "bias_correction1" and
//            "bias_correction2", then the optimizer states (parameter-major,
//            optimizer_state_names order);
//   outputs: "loss", the updated parameters, the updated states (same order),
//            the updated running statistics.
// BatchNormalization runs in training mode there (batch statistics, running
// ones updated with its momentum), and Dropout drops with a mask drawn from
// its seed and the step; the evaluation model runs both in inference mode.
#pragma once

#include <cstdint>
#include <vector>

#include "mote/model.hpp"
#include "mote/training.hpp"

namespace mote {

struct TrainingModelSpec {
  std::vector<Shape> input_shapes;
  std::vector<int> params;  // tensor indices of the trainable constants
  // Tensor indices of BatchNormalization's running statistics
  // (select_running_stats): fed in and returned updated, never trained.
  std::vector<int> running_stats;
  int output = 0;           // index into the model's outputs the loss reads
  DType label_dtype = DType::I64;
  Shape label_shape;
  LossKind loss = LossKind::kSoftmaxCrossEntropy;
  OptimizerOptions optimizer;
  // Gradient checkpointing (TrainingOptions): tensor indices of the model
  // after which a segment ends, and/or a segment length in forward ops.
  std::vector<int> checkpoints;
  int checkpoint_every = 0;
};

Result<std::vector<uint8_t>> build_training_model(const Model& model, const TrainingModelSpec& spec);

// Whether the training model of `model` has the "step" input.
bool has_dropout(const Model& model);

// The forward model with the parameters, then the running statistics, as
// inputs after the model's own (fused activations kept): what evaluate() runs.
Result<std::vector<uint8_t>> build_eval_model(const Model& model, const std::vector<Shape>& input_shapes,
                                              const std::vector<int>& params, const std::vector<int>& running_stats);

}  // namespace mote
