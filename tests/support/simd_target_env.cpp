// Every test program linking the support library honours MOTE_SIMD_TARGET
// from its first test on, also in tests that call kernels without a
// Session: CTest runs the op tests once per arm64 target this way
// (platforms/linux-aarch64/test.sh).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "runtime/cpu/simd_target.hpp"

namespace mote::test {
namespace {

class SimdTargetEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    Status st = cpu::apply_simd_target_env();
    ASSERT_TRUE(st.ok()) << st.to_string();
    if (std::getenv("MOTE_SIMD_TARGET")) std::printf("[ simd     ] kernels run with %s\n", cpu::simd_target().c_str());
  }
};

// gtest owns the environment; registering at static initialisation is its
// documented way to add one without a custom main().
[[maybe_unused]] ::testing::Environment* const kSimdTargetEnvironment =
    ::testing::AddGlobalTestEnvironment(new SimdTargetEnvironment);

}  // namespace
}  // namespace mote::test
