// Which constants of a model a TrainingSession trains (TrainingOptions).
#pragma once

#include <vector>

#include "mote/model.hpp"
#include "mote/training.hpp"

namespace mote {

// Tensor indices, in tensor order. Only f32 constants of rank >= 1 that some
// op reads as data (never as a shape, axes or other value input) qualify.
Result<std::vector<int>> select_trainable(const Model& model, const TrainingOptions& options);

}  // namespace mote
