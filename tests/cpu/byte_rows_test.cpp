// The byte-row helpers of the int8 convolution's patch copies (row_simd.hpp)
// against plain loops, on every SIMD target, over lengths with and without
// tails, the adds wrapping modulo 256.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "runtime/cpu/row_simd.hpp"
#include "tests/support/simd_targets.hpp"

namespace mote::cpu {
namespace {

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

TEST(ByteRows, AddToBytesWrapsLikeALoop) {
  test::for_each_simd_target([] {
    for (int64_t n : {1, 15, 16, 17, 63, 64, 65, 200, 3136}) {
      for (int add : {0, 1, 128, 255}) {
        const std::vector<uint8_t> src = random_bytes(static_cast<size_t>(n), static_cast<uint32_t>(n + add));
        std::vector<uint8_t> dst(static_cast<size_t>(n) + 8, 7);  // 8 guard bytes past n
        simd::add_to_bytes(src.data(), n, static_cast<uint8_t>(add), dst.data());
        for (int64_t i = 0; i < n; ++i) {
          ASSERT_EQ(dst[static_cast<size_t>(i)], static_cast<uint8_t>(src[static_cast<size_t>(i)] + add))
              << "n " << n << " add " << add << " at " << i;
        }
        for (size_t i = static_cast<size_t>(n); i < dst.size(); ++i) ASSERT_EQ(dst[i], 7) << "wrote past n " << n;
      }
    }
  });
}

}  // namespace
}  // namespace mote::cpu
