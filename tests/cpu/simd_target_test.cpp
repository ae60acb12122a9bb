// Forcing a SIMD target (runtime/cpu/simd_target.hpp, MOTE_SIMD_TARGET):
// the forced target becomes the best one, every worse target the CPU runs
// stays, and code built without the forced target (the GEMM kernel leaves
// out SSE4, SSSE3 and the scalable arm64 targets) runs the best of its own
// that is no better, as on a chip whose best target the forced one is. The
// expectations come from Highway's own detection, enumerated bit by bit.
#include "runtime/cpu/simd_target.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hwy/targets.h"
#include "runtime/cpu/gemm_internal.hpp"
#include "tests/support/simd_targets.hpp"

namespace mote {
namespace {

// Highway numbers its targets best first: a larger bit is a worse target.
bool no_better_than(int64_t candidate, int64_t target) { return candidate >= target; }

TEST(SimdTarget, ForcedTargetIsTheBestAndKeepsTheWorseOnes) {
  const test::RestoreSimdTargets restore;
  cpu::force_simd_target(0);
  const int64_t real = hwy::SupportedTargets();
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  const std::vector<int64_t> gemm_targets = cpu::gemm_detail::targets_for_test();
  // Highway 1.0 counts NEON only with the AES instructions: a Cortex-A72
  // without them (Raspberry Pi 4) has no target to force.
  if (targets.empty()) GTEST_SKIP() << "Highway reports no SIMD target on this CPU";
  for (int64_t target : targets) {
    SCOPED_TRACE(std::string("forced ") + hwy::TargetName(target));
    cpu::force_simd_target(target);
    EXPECT_EQ(cpu::simd_target(), hwy::TargetName(target));
    const int64_t forced = hwy::SupportedTargets();
    for (int bit = 0; bit < 63; ++bit) {
      const int64_t t = int64_t{1} << bit;
      if (!(real & t)) {
        EXPECT_FALSE(forced & t) << "the CPU lacks " << hwy::TargetName(t);
      } else {
        EXPECT_EQ(static_cast<bool>(forced & t), no_better_than(t, target)) << hwy::TargetName(t);
      }
    }
    // The GEMM kernel dispatches to the first of its targets still offered
    // (its shape names the variant that answered).
    for (int64_t t : gemm_targets) {
      if (no_better_than(t, target)) {
        EXPECT_EQ(hwy::TargetName(cpu::gemm_detail::kernel_shape().target), hwy::TargetName(t));
        break;
      }
    }
  }
}

}  // namespace
}  // namespace mote
