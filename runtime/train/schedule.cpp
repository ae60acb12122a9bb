// Learning-rate schedules, evaluated on the host once per step; the value
// reaches the training graph as its scalar "learning_rate" input.
#include <algorithm>
#include <cmath>

#include "mote/training.hpp"

namespace mote {

float scheduled_learning_rate(float base, const ScheduleOptions& s, int64_t step) {
  if (s.warmup_steps > 0 && step < s.warmup_steps) {
    return base * static_cast<float>(step + 1) / static_cast<float>(s.warmup_steps);
  }
  const int64_t after = step - std::max<int64_t>(s.warmup_steps, 0);
  switch (s.kind) {
    case ScheduleKind::kConstant: return base;
    case ScheduleKind::kStep: {
      const int64_t size = std::max<int64_t>(s.step_size, 1);
      return base * static_cast<float>(std::pow(double{s.gamma}, static_cast<double>(after / size)));
    }
    case ScheduleKind::kCosine: {
      const int64_t span = std::max<int64_t>(s.total_steps - std::max<int64_t>(s.warmup_steps, 0), 1);
      const double progress = std::min(1.0, static_cast<double>(after) / static_cast<double>(span));
      const double pi = 3.14159265358979323846;
      return static_cast<float>(s.min_lr + (base - s.min_lr) * 0.5 * (1.0 + std::cos(pi * progress)));
    }
  }
  return base;
}

}  // namespace mote
