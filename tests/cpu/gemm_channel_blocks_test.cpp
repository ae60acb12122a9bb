// sgemm on a channel-blocked A (ChannelBlocks: 1x1 convolutions reading the
// blocked activation layout into NCHW) against a double-precision triple
// loop that reads the blocked layout through its index formula, on every
// compiled GEMM target, 1 and 2 threads, with bias, residual, clamp and an
// activation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "runtime/cpu/gemm.hpp"
#include "runtime/cpu/gemm_internal.hpp"
#include "runtime/cpu/simd_target.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "tests/support/op_test_util.hpp"
#include "tests/support/simd_targets.hpp"

namespace mote::cpu {
namespace {

constexpr float kSentinel = -777.0f;

// Element (i, j) of a rows x cols matrix stored in channel blocks of
// `block` with `block_stride`, the ChannelBlocks formula.
int64_t blocked_index(int64_t i, int64_t j, int64_t block, int64_t block_stride) {
  return j / block * block_stride + i * block + j % block;
}

struct Layout {
  int64_t block, block_stride;
};

// Runs one product and compares every element of C, and that nothing
// outside C (the two columns past N of each row) was written.
void check(int64_t M, int64_t N, int64_t K, bool a_blocked, bool with_residual, ThreadPool* pool) {
  const int64_t lanes = gemm_lanes();
  SCOPED_TRACE("M " + std::to_string(M) + " N " + std::to_string(N) + " K " + std::to_string(K) +
               (a_blocked ? " blocked A" : " planar A") + (with_residual ? " residual" : "") +
               (pool ? " 2 threads" : " 1 thread") + " lanes " + std::to_string(lanes));
  const auto blocks = [&](int64_t channels) { return (channels + lanes - 1) / lanes; };
  // A: pixels x channels, planar (channel j's plane at j * (M + 3)) or blocked.
  const Layout a_layout = a_blocked ? Layout{lanes, lanes * M + 5} : Layout{1, M + 3};
  const std::vector<float> a_logical = test::random_floats(static_cast<size_t>(M * K), 1);
  std::vector<float> a(static_cast<size_t>(blocks(K) * (a_blocked ? a_layout.block_stride : (M + 3) * lanes)),
                       std::nanf(""));  // padding lanes hold NaN: they must never reach C
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k)
      a[static_cast<size_t>(blocked_index(i, k, a_layout.block, a_layout.block_stride))] = a_logical[i * K + k];
  // Weights W [N, K], packed as B = W^T.
  const std::vector<float> w = test::random_floats(static_cast<size_t>(N * K), 2);
  const PackedMatrix packed = pack_b(true, K, N, w.data(), K);
  const std::vector<float> bias = test::random_floats(static_cast<size_t>(N), 3);

  const int64_t ldc = N + 2;
  const size_t c_floats = static_cast<size_t>(M * ldc);
  std::vector<float> c(c_floats, kSentinel);
  std::vector<float> residual = test::random_floats(c_floats, 4);

  GemmEpilogue ep;
  ep.col_bias = bias.data();
  ep.clamp_min = -0.6f;
  ep.activation = [](const void*, float* data, int64_t n) {
    for (int64_t i = 0; i < n; ++i) data[i] = 2.0f * data[i] + 1.0f;  // twice would be 4x + 3
  };
  if (with_residual) {
    ep.residual = residual.data();
    ep.ld_residual = ldc;
  }
  sgemm(ChannelBlocks<const float>{a.data(), a_layout.block, a_layout.block_stride}, M, packed, c.data(), ldc, ep,
        pool);

  std::vector<bool> valid(c_floats, false);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      double sum = bias[static_cast<size_t>(j)];
      for (int64_t k = 0; k < K; ++k) sum += double{a_logical[i * K + k]} * w[j * K + k];
      const size_t at = static_cast<size_t>(i * ldc + j);
      if (with_residual) sum += residual[at];
      const double expected = 2.0 * std::max(sum, -0.6) + 1.0;
      ASSERT_NEAR(c[at], expected, 1e-4 * (1.0 + std::fabs(expected))) << "at (" << i << ", " << j << ")";
      valid[at] = true;
    }
  }
  for (size_t at = 0; at < c_floats; ++at) {
    if (!valid[at]) ASSERT_EQ(c[at], kSentinel) << "wrote outside C at " << at;
  }
}

TEST(SgemmChannelBlocks, MatchesTripleLoopOnEveryTarget) {
  const test::RestoreSimdTargets restore;
  ThreadPool pool(2);
  const std::vector<int64_t> targets = test::kernel_targets_to_test(gemm_detail::targets_for_test());
  if (targets.empty()) GTEST_SKIP() << "no GEMM target to force here (MOTE_SIMD_TARGET names one it lacks)";
  for (int64_t target : targets) {
    gemm_detail::force_target_for_test(target);
    SCOPED_TRACE("target " + std::to_string(target));
    struct Size {
      int64_t M, N, K;
    };
    // Pixels past a panel edge, channels of whole and partial blocks, K
    // across channel blocks and K blocks (kc 256 or 384).
    for (Size s : {Size{1, 5, 3}, Size{7, 16, 16}, Size{49, 24, 37}, Size{50, 72, 136}, Size{130, 100, 500}}) {
      for (bool a_blocked : {false, true}) {
        for (bool residual : {false, true}) {
          for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
            check(s.M, s.N, s.K, a_blocked, residual, p);
            if (HasFatalFailure()) return;
          }
        }
      }
    }
  }
}

TEST(SgemmChannelBlocks, RefusesABlockOtherThanTheLanes) {
  const int64_t lanes = gemm_lanes();
  const std::vector<float> w(6, 1.0f);
  const PackedMatrix packed = pack_b(true, 2, 3, w.data(), 2);
  std::vector<float> a(64 * 4, 0.0f), c(64 * 4, 0.0f);
  EXPECT_THROW(sgemm(ChannelBlocks<const float>{a.data(), lanes + 1, 64}, 2, packed, c.data(), 3),
               std::invalid_argument);
}

}  // namespace
}  // namespace mote::cpu
