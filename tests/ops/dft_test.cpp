// DFT: the CPU kernel's fast transforms (radix-2 for powers of two,
// Bluestein otherwise) against the reference's direct O(n^2) sums.
#include <string>

#include "tests/support/op_test_util.hpp"

namespace mote::test {
namespace {

fb::OpT dft_op(bool inverse, bool onesided) {
  fb::DftAttrsT a;
  a.inverse = inverse;
  a.onesided = onesided;
  return make_op(fb::OpType::DFT, a);
}

Tensor i64(int64_t v) { return Tensor::from_vector<int64_t>({}, {v}); }

TEST(DftOps, FastTransformsMatchTheDirectSum) {
  // Powers of two, a prime, products of small primes, and 1.
  for (int64_t n : {1, 2, 8, 64, 5, 12, 17, 100, 243}) {
    for (bool inverse : {false, true}) {
      for (int64_t parts : {1, 2}) {
        SCOPED_TRACE("n " + std::to_string(n) + (inverse ? ", inverse" : "") + ", parts " + std::to_string(parts));
        const Tensor x = random_tensor(DType::F32, {2, n, 3, parts}, static_cast<uint32_t>(n * 7 + parts));
        expect_cpu_matches_reference(dft_op(inverse, false), {x, std::nullopt, i64(1)}, 1e-4, 1e-4);
      }
    }
  }
}

TEST(DftOps, OnesidedPaddedAndTruncatedMatchTheDirectSum) {
  const Tensor real = random_tensor(DType::F32, {3, 20, 1}, 1);
  const Tensor real64 = random_tensor(DType::F64, {3, 20, 1}, 4);
  for (int64_t length : {20, 32, 31, 9}) {  // as is, padded to 2^k, padded to a prime, truncated
    SCOPED_TRACE("dft_length " + std::to_string(length));
    expect_cpu_matches_reference(dft_op(false, true), {real, i64(length)}, 1e-4, 1e-4);
    expect_cpu_matches_reference(dft_op(false, false), {real64, i64(length)}, 1e-9, 1e-9);
  }
  // An inverse one-sided input: the half spectrum of a real signal.
  const Tensor half = random_tensor(DType::F32, {2, 11, 2}, 2);
  expect_cpu_matches_reference(dft_op(true, true), {half}, 1e-4, 1e-4);
  expect_cpu_matches_reference(dft_op(true, true), {half, i64(19)}, 1e-4, 1e-4);
}

TEST(DftOps, CpuRefusesAnOverlongTransform) {
  const Tensor x = random_tensor(DType::F32, {1, 4, 1}, 3);
  auto out = run_op(dft_op(false, true), {x, i64((int64_t{1} << 20) + 1)}, Impl::kCpu);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("dft_length 1048577 is above the 1048576 points"), std::string::npos)
      << out.status().to_string();
}

}  // namespace
}  // namespace mote::test
