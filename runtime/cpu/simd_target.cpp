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

void force_simd_target(int64_t target) {
  hwy::SetSupportedTargetsForTest(0);
  if (target != 0) {
    // Highway numbers targets best first, so the bits above `target` are
    // the worse ones. Code built without `target` (the GEMM, convolution and
    // 1x1 kernels leave out the scalable ones) then takes the next best
    // target the CPU runs, as on a chip whose best target this is. With the
    // mask limited to `target` alone it took Highway's fallback instead
    // (EMU128 on x86, the baseline NEON on arm64), which is the next best
    // target only where no target lies between the two.
    const int64_t worse = ~(target | (target - 1));
    hwy::SetSupportedTargetsForTest(target | (hwy::SupportedTargets() & worse));
  }
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
}

Status apply_simd_target_env() {
  const char* env = std::getenv("MOTE_SIMD_TARGET");
  if (!env || !*env) return {};
  std::string wanted = upper(env);
  std::string known;
  force_simd_target(0);  // choose among what the CPU really runs
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    std::string name = hwy::TargetName(target);
    if (upper(name) == wanted) {
      force_simd_target(target);
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
