#include "runtime/cpu/simd_target.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "hwy/targets.h"

namespace mote::cpu {
namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

}  // namespace

Status apply_simd_target_env() {
  const char* env = std::getenv("MOTE_SIMD_TARGET");
  if (!env || !*env) return {};
  std::string wanted = upper(env);
  std::string known;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    std::string name = hwy::TargetName(target);
    if (upper(name) == wanted) {
      hwy::SetSupportedTargetsForTest(target);
      hwy::GetChosenTarget().Update(hwy::SupportedTargets());
      return {};
    }
    known += (known.empty() ? "" : ", ") + name;
  }
  return invalid_argument("MOTE_SIMD_TARGET=" + std::string(env) +
                          " is not a SIMD target of this build that this CPU runs; choose one of " + known);
}


std::vector<std::string> simd_targets() {
  std::vector<std::string> names;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) names.push_back(hwy::TargetName(target));
  return names;
}

std::string simd_target() {
  // The chosen target is the best bit of the mask Highway dispatches with.
  std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  return targets.empty() ? "none" : hwy::TargetName(targets.front());
}

}  // namespace mote::cpu
