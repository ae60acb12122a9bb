// Runs a test body once per SIMD instruction set that Highway compiled the
// kernels for and this CPU supports (on x86: AVX-512, AVX2, SSE4, SSSE3 and
// scalar; on arm64: NEON, SVE, SVE2...), so the paths the build machine
// would not pick are tested too; code not built for a target takes the next
// best one. Under MOTE_SIMD_TARGET only that target runs
// (runtime/cpu/simd_target.hpp).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "hwy/targets.h"
#include "runtime/cpu/simd_target.hpp"

namespace mote::test {

inline bool simd_target_forced() {
  const char* env = std::getenv("MOTE_SIMD_TARGET");
  return env && *env;
}

// Of one kernel's own targets (`compiled`: what its file was built for and
// this CPU runs), the ones a test should force: all of them, or under
// MOTE_SIMD_TARGET only the forced target if the kernel has it (without
// it, the kernel runs a worse target, which that target's run tests).
inline std::vector<int64_t> kernel_targets_to_test(std::vector<int64_t> compiled) {
  if (!simd_target_forced()) return compiled;
  const std::vector<int64_t> offered = hwy::SupportedAndGeneratedTargets();
  if (offered.empty() || compiled.empty() || compiled.front() != offered.front()) return {};
  compiled.resize(1);
  return compiled;
}

// For a test that forces targets: puts back the CPU's own choice (or
// MOTE_SIMD_TARGET's) however the test exits.
struct RestoreSimdTargets {
  RestoreSimdTargets() = default;
  RestoreSimdTargets(const RestoreSimdTargets&) = delete;
  RestoreSimdTargets& operator=(const RestoreSimdTargets&) = delete;
  ~RestoreSimdTargets() {
    cpu::force_simd_target(0);
    EXPECT_TRUE(cpu::apply_simd_target_env().ok());
  }
};

template <class Body>
void for_each_simd_target(Body body) {
  const RestoreSimdTargets restore;
  EXPECT_TRUE(cpu::apply_simd_target_env().ok());
  std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  // The forced target is the best of its mask; the worse ones stay in it.
  if (simd_target_forced() && !targets.empty()) targets.resize(1);
  for (int64_t target : targets) {
    SCOPED_TRACE(std::string("SIMD target ") + hwy::TargetName(target));
    cpu::force_simd_target(target);
    body();
  }
}

}  // namespace mote::test
