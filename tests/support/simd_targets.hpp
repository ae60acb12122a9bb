// Runs a test body once per SIMD instruction set that Highway compiled the
// kernels for and this CPU supports (on x86: AVX-512, AVX2, SSE4, SSSE3 and
// scalar; on arm64: NEON, SVE, SVE2...), so the paths the build machine
// would not pick are tested too. Under MOTE_SIMD_TARGET only that target
// runs (runtime/cpu/simd_target.hpp).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "hwy/targets.h"
#include "runtime/cpu/simd_target.hpp"

namespace mote::test {

template <class Body>
void for_each_simd_target(Body body) {
  // Restores the real CPU's targets however the body exits.
  struct Restore {
    ~Restore() {
      hwy::SetSupportedTargetsForTest(0);
      hwy::GetChosenTarget().Update(hwy::SupportedTargets());
      EXPECT_TRUE(cpu::apply_simd_target_env().ok());
    }
  } restore;
  EXPECT_TRUE(cpu::apply_simd_target_env().ok());
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(std::string("SIMD target ") + hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    body();
  }
}

}  // namespace mote::test
