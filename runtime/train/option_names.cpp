// The spelled-out names of the training options, shared by the C API and
// command lines so that both accept exactly the same words.
#include <array>
#include <string>
#include <utility>

#include "mote/training.hpp"

namespace mote {
namespace {

template <class Enum, size_t N>
Result<Enum> parse(const std::array<std::pair<const char*, Enum>, N>& names, const std::string& name,
                   const char* what) {
  std::string expected;
  for (const auto& [spelling, value] : names) {
    if (name == spelling) return value;
    expected += expected.empty() ? spelling : std::string(", ") + spelling;
  }
  return invalid_argument("unknown " + std::string(what) + " '" + name + "' (expected " + expected + ")");
}

}  // namespace

Result<LossKind> parse_loss_kind(const std::string& name) {
  static constexpr std::array<std::pair<const char*, LossKind>, 3> kNames{{
      {"softmax_cross_entropy", LossKind::kSoftmaxCrossEntropy},
      {"mse", LossKind::kMse},
      {"bce_with_logits", LossKind::kBceWithLogits},
  }};
  return parse(kNames, name, "loss");
}

Result<OptimizerKind> parse_optimizer_kind(const std::string& name) {
  static constexpr std::array<std::pair<const char*, OptimizerKind>, 2> kNames{{
      {"sgd", OptimizerKind::kSgd},
      {"adamw", OptimizerKind::kAdamW},
  }};
  return parse(kNames, name, "optimizer");
}

Result<ScheduleKind> parse_schedule_kind(const std::string& name) {
  static constexpr std::array<std::pair<const char*, ScheduleKind>, 3> kNames{{
      {"constant", ScheduleKind::kConstant},
      {"step", ScheduleKind::kStep},
      {"cosine", ScheduleKind::kCosine},
  }};
  return parse(kNames, name, "learning-rate schedule");
}

}  // namespace mote
