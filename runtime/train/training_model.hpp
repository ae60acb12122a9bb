// The training model: forward graph (trainable constants as inputs), loss,
// backward graph and optimizer update, as one .mote built for one set of
// input shapes. Its interface:
//   inputs:  the model's inputs, the parameters, "labels", "learning_rate",
//            for AdamW "bias_correction1" and "bias_correction2", then the
//            optimizer states (parameter-major, optimizer_state_names order);
//   outputs: "loss", the updated parameters, the updated states (same order).
#pragma once

#include <cstdint>
#include <vector>

#include "mote/model.hpp"
#include "mote/training.hpp"

namespace mote {

struct TrainingModelSpec {
  std::vector<Shape> input_shapes;
  std::vector<int> params;  // tensor indices of the trainable constants
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

// The forward model with the parameters as inputs after the model's own
// (fused activations kept): what evaluate() runs.
Result<std::vector<uint8_t>> build_eval_model(const Model& model, const std::vector<Shape>& input_shapes,
                                              const std::vector<int>& params);

}  // namespace mote
