// Optimizer updates as ops appended to the training graph. The learning rate
// and AdamW's bias corrections are scalar graph inputs, so schedules change
// them per step without re-planning.
#pragma once

#include <string>
#include <vector>

#include "mote/training.hpp"
#include "runtime/train/train_graph.hpp"

namespace mote {

// Per parameter, the names of the optimizer's state tensors (suffixes of the
// parameter name): SGD with momentum {"momentum"}, AdamW {"adam_m", "adam_v"},
// plain SGD none.
std::vector<std::string> optimizer_state_names(const OptimizerOptions& options);

struct OptimizerInputs {
  int learning_rate = -1;
  int bias_correction1 = -1;  // AdamW: 1 / (1 - beta1^t)
  int bias_correction2 = -1;  // AdamW: 1 / (1 - beta2^t)
};

// Appends the update of one parameter; returns its new value and fills
// `new_states` (one per entry of `states`, same order).
int build_update(TrainGraph& g, const OptimizerOptions& options, const OptimizerInputs& in, int param, int grad,
                 const std::vector<int>& states, std::vector<int>& new_states);

}  // namespace mote
