// Which constants of a model a TrainingSession trains (TrainingOptions), and
// which it keeps as non-trainable state (BatchNormalization's running
// statistics, updated by the forward pass rather than by gradients).
#pragma once

#include <vector>

#include "mote/model.hpp"
#include "mote/training.hpp"

namespace mote {

// Tensor indices, in tensor order. Only f32 constants of rank >= 1 that some
// op reads as data (never as a shape, axes or other value input) qualify.
// BatchNormalization's input_mean and input_var are never trainable.
Result<std::vector<int>> select_trainable(const Model& model, const TrainingOptions& options);

// The constants BatchNormalization ops read as input_mean or input_var, in
// tensor order. Each must be read by that one op only, so that one running
// update per tensor exists.
Result<std::vector<int>> select_running_stats(const Model& model);

}  // namespace mote
