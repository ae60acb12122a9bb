// sgemm on channel-blocked operands (ChannelBlocks: the 1x1 convolutions of
// the blocked activation layout) against a double-precision triple loop that
// reads and writes the blocked layouts through their index formula, on every
// compiled GEMM target, 1 and 2 threads, with bias, residual, clamp and an
// activation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "runtime/cpu/gemm.hpp"
#include "runtime/cpu/gemm_internal.hpp"
#include "runtime/cpu/simd_target.hpp"
#include "runtime/cpu/thread_pool.hpp"

namespace mote::cpu {
namespace {

constexpr float kSentinel = -777.0f;

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Element (i, j) of a rows x cols matrix stored in channel blocks of
// `block` with `block_stride`, the ChannelBlocks formula.
int64_t blocked_index(int64_t i, int64_t j, int64_t block, int64_t block_stride) {
  return j / block * block_stride + i * block + j % block;
}

struct Layout {
  int64_t block, block_stride;  // block_stride 0: row-major C with leading dimension `block`
};

int64_t c_index(const Layout& l, int64_t i, int64_t j) {
  return l.block_stride ? blocked_index(i, j, l.block, l.block_stride) : i * l.block + j;
}

// Runs one product and compares every element of C, and that nothing
// outside C's valid region (its padding lanes aside) was written.
void check(int64_t M, int64_t N, int64_t K, bool a_blocked, bool c_blocked, bool with_residual, ThreadPool* pool) {
  const int64_t lanes = gemm_lanes();
  SCOPED_TRACE("M " + std::to_string(M) + " N " + std::to_string(N) + " K " + std::to_string(K) +
               (a_blocked ? " blocked A" : " planar A") + (c_blocked ? " blocked C" : " row-major C") +
               (with_residual ? " residual" : "") + (pool ? " 2 threads" : " 1 thread") + " lanes " +
               std::to_string(lanes));
  const auto blocks = [&](int64_t channels) { return (channels + lanes - 1) / lanes; };
  // A: pixels x channels, planar (channel j's plane at j * (M + 3)) or blocked.
  const Layout a_layout = a_blocked ? Layout{lanes, lanes * M + 5} : Layout{1, M + 3};
  const std::vector<float> a_logical = random_floats(static_cast<size_t>(M * K), 1);
  std::vector<float> a(static_cast<size_t>(blocks(K) * (a_blocked ? a_layout.block_stride : (M + 3) * lanes)),
                       std::nanf(""));  // padding lanes hold NaN: they must never reach C
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k)
      a[static_cast<size_t>(blocked_index(i, k, a_layout.block, a_layout.block_stride))] = a_logical[i * K + k];
  // Weights W [N, K], packed as B = W^T.
  const std::vector<float> w = random_floats(static_cast<size_t>(N * K), 2);
  const PackedMatrix packed = pack_b(true, K, N, w.data(), K);
  const std::vector<float> bias = random_floats(static_cast<size_t>(N), 3);

  const Layout c_layout = c_blocked ? Layout{lanes, lanes * M + 7} : Layout{N + 2, 0};
  const size_t c_floats = static_cast<size_t>(c_blocked ? blocks(N) * c_layout.block_stride : M * (N + 2));
  std::vector<float> c(c_floats, kSentinel);
  std::vector<float> residual = random_floats(c_floats, 4);

  GemmEpilogue ep;
  ep.col_bias = bias.data();
  ep.clamp_min = -0.6f;
  ep.activation = [](const void*, float* data, int64_t n) {
    for (int64_t i = 0; i < n; ++i) data[i] = 2.0f * data[i] + 1.0f;  // twice would be 4x + 3
  };
  if (with_residual) {
    ep.residual = residual.data();
    ep.ld_residual = c_layout.block;
  }
  sgemm(ChannelBlocks<const float>{a.data(), a_layout.block, a_layout.block_stride}, M, packed,
        ChannelBlocks<float>{c.data(), c_layout.block, c_layout.block_stride}, ep, pool);

  std::vector<bool> valid(c_floats, false);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      double sum = bias[static_cast<size_t>(j)];
      for (int64_t k = 0; k < K; ++k) sum += double{a_logical[i * K + k]} * w[j * K + k];
      const size_t at = static_cast<size_t>(c_index(c_layout, i, j));
      if (with_residual) sum += residual[at];
      const double expected = 2.0 * std::max(sum, -0.6) + 1.0;
      ASSERT_NEAR(c[at], expected, 1e-4 * (1.0 + std::fabs(expected))) << "at (" << i << ", " << j << ")";
      valid[at] = true;
    }
  }
  // Row-major C: the two columns past N of each row are untouched. Blocked C:
  // lanes past N in the last block are padding (written), and the gaps
  // between blocks are untouched.
  for (size_t at = 0; at < c_floats; ++at) {
    if (valid[at]) continue;
    const bool padding_lane = c_blocked && static_cast<int64_t>(at) % c_layout.block_stride < lanes * M &&
                              static_cast<int64_t>(at) / c_layout.block_stride == blocks(N) - 1;
    if (!padding_lane) ASSERT_EQ(c[at], kSentinel) << "wrote outside C at " << at;
  }
}

TEST(SgemmChannelBlocks, MatchesTripleLoopOnEveryTarget) {
  struct Restore {
    ~Restore() {
      gemm_detail::force_target_for_test(0);
      EXPECT_TRUE(cpu::apply_simd_target_env().ok());
    }
  } restore;
  ThreadPool pool(2);
  const std::vector<int64_t> targets = gemm_detail::targets_for_test();
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
        for (bool c_blocked : {false, true}) {
          for (bool residual : {false, true}) {
            for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
              check(s.M, s.N, s.K, a_blocked, c_blocked, residual, p);
              if (HasFatalFailure()) return;
            }
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
  EXPECT_THROW(
      sgemm(ChannelBlocks<const float>{a.data(), lanes + 1, 64}, 2, packed, ChannelBlocks<float>{c.data(), 3, 0}),
      std::invalid_argument);
  EXPECT_THROW(
      sgemm(ChannelBlocks<const float>{a.data(), 1, 2}, 2, packed, ChannelBlocks<float>{c.data(), lanes + 1, 64}),
      std::invalid_argument);
}

}  // namespace
}  // namespace mote::cpu
