// qgemm_format: which weight ranges each instruction set multiplies as bytes
// (qgemm.hpp). The products themselves are tested through QLinearConv
// (tests/ops/qlinear_conv_test.cpp) against the exact reference.
#include "runtime/cpu/qgemm.hpp"

#include <gtest/gtest.h>

#include "hwy/targets.h"
#include "tests/support/simd_targets.hpp"

namespace mote::test {
namespace {

using cpu::qgemm_format;
using cpu::QgemmFormat;

TEST(Qgemm, FormatFollowsTheWeightRange) {
  for_each_simd_target([] {
    // Past int8: int16 pairs on every target.
    EXPECT_EQ(qgemm_format(-129, 0), QgemmFormat::kPairs);
    EXPECT_EQ(qgemm_format(0, 128), QgemmFormat::kPairs);
    const bool vnni = qgemm_format(-128, 127) == QgemmFormat::kQuads;
    if (vnni) {
      EXPECT_EQ(qgemm_format(-65, 63), QgemmFormat::kQuads);
      EXPECT_EQ(qgemm_format(-64, 64), QgemmFormat::kQuads);
    } else {
      // The byte-pair kernel: exact only while two products of 255 * w fit
      // int16, so [-64, 63] and not one step further.
      EXPECT_EQ(qgemm_format(-65, 63), QgemmFormat::kPairs);
      EXPECT_EQ(qgemm_format(-64, 64), QgemmFormat::kPairs);
    }
#if HWY_ARCH_X86
    // Every x86 SIMD target multiplies 7-bit weights as bytes (pmaddubsw is
    // SSSE3); only the portable fallbacks do not. B's bytes are unsigned.
    const int64_t simd = hwy::SupportedTargets() & ~static_cast<int64_t>(HWY_SCALAR | HWY_EMU128);
    EXPECT_EQ(qgemm_format(-64, 63), simd != 0 ? QgemmFormat::kQuads : QgemmFormat::kPairs);
    EXPECT_FALSE(cpu::qgemm_quads_signed_b());
#endif
#if HWY_ARCH_ARM_A64
    // sdot multiplies int8 by int8: B's bytes are signed exactly where the
    // NEON target runs quads (cores with the dot-product extension, as
    // qemu's "max"); the SVE targets and older cores run pairs.
    EXPECT_EQ(cpu::qgemm_quads_signed_b(), qgemm_format(-128, 127) == QgemmFormat::kQuads);
#endif
  });
}

}  // namespace
}  // namespace mote::test
