#include "runtime/cpu/denormals.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cfenv>
#include <cfloat>
#include <cmath>

#include "runtime/cpu/thread_pool.hpp"

namespace mote::cpu {
namespace {

// 1e-30 * 1e-10 = 1e-40 is subnormal in IEEE arithmetic and 0 with
// flush-to-zero. volatile keeps the compiler from folding it.
float tiny_product() {
  volatile float a = 1e-30f, b = 1e-10f;
  return a * b;
}

bool flush_supported() {
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
  return true;
#else
  return false;
#endif
}

TEST(Denormals, ScopeFlushesAndRestores) {
  if (!flush_supported()) GTEST_SKIP() << "no flush-to-zero control on this architecture";
  EXPECT_EQ(std::fpclassify(tiny_product()), FP_SUBNORMAL);
  {
    FlushDenormalsScope flush;
    EXPECT_EQ(tiny_product(), 0.0f);
  }
  EXPECT_EQ(std::fpclassify(tiny_product()), FP_SUBNORMAL);
}

// An application that rounds upward still gets round-to-nearest inside the
// scope (the int8 requantisation rounds by a float addition), and its own
// mode back after. 1 + 2^-24 is a tie between 1 and 1 + 2^-23.
TEST(Denormals, ScopeRoundsToNearestAndRestores) {
  if (!flush_supported()) GTEST_SKIP() << "no floating-point control on this architecture";
  // x87 arithmetic (i386) keeps its own rounding control, which the scope
  // leaves alone.
  if (FLT_EVAL_METHOD != 0) GTEST_SKIP() << "float arithmetic is not SSE or NEON here";
  const int saved = std::fegetround();
  ASSERT_EQ(std::fesetround(FE_UPWARD), 0);
  volatile float one = 1.0f, half_ulp = 0x1p-24f;
  EXPECT_EQ(one + half_ulp, 1.0f + 0x1p-23f);  // upward
  {
    FlushDenormalsScope scope;
    EXPECT_EQ(one + half_ulp, 1.0f);  // the tie to even
  }
  EXPECT_EQ(one + half_ulp, 1.0f + 0x1p-23f);  // upward again
  std::fesetround(saved);
}

TEST(Denormals, PoolTasksRunUnderTheCallersMode) {
  if (!flush_supported()) GTEST_SKIP() << "no flush-to-zero control on this architecture";
  ThreadPool pool(4);
  std::atomic<int> subnormal{0}, zero{0};
  auto count = [&](int64_t) { (tiny_product() == 0.0f ? zero : subnormal).fetch_add(1); };
  {
    FlushDenormalsScope flush;
    pool.run(64, count);
  }
  EXPECT_EQ(zero.load(), 64);
  zero = 0;
  pool.run(64, count);
  EXPECT_EQ(subnormal.load(), 64);
}

}  // namespace
}  // namespace mote::cpu
