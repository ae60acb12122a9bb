#include "runtime/core/memory_planner.hpp"

#include <gtest/gtest.h>

#include <random>

namespace mote {
namespace {

bool overlaps_in_time(const LifetimeRequest& a, const LifetimeRequest& b) {
  return a.first_step <= b.last_step && b.first_step <= a.last_step;
}

TEST(MemoryPlanner, ChainReusesMemory) {
  // A chain t0 -> t1 -> t2 -> t3: only neighbours are alive together.
  std::vector<LifetimeRequest> r = {{1000, 0, 1}, {1000, 1, 2}, {1000, 2, 3}, {1000, 3, 4}};
  MemoryPlan plan = plan_memory(r, 64);
  EXPECT_EQ(plan.arena_bytes, 2 * 1024u);
  EXPECT_EQ(plan.unshared_bytes, 4 * 1024u);
}

// Property check against the definition: no two tensors alive at the same
// time share a byte, offsets are aligned, everything fits the arena.
TEST(MemoryPlanner, RandomPlansNeverOverlapLiveTensors) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<LifetimeRequest> r(1 + rng() % 40);
    for (auto& q : r) {
      q.bytes = 1 + rng() % 5000;
      q.first_step = static_cast<int>(rng() % 30);
      q.last_step = q.first_step + static_cast<int>(rng() % 10);
    }
    MemoryPlan plan = plan_memory(r, 64);
    uint64_t live_peak = 0;
    for (int step = 0; step < 45; ++step) {
      uint64_t live = 0;
      for (auto& q : r) live += (q.first_step <= step && step <= q.last_step) ? (q.bytes + 63) / 64 * 64 : 0;
      live_peak = std::max(live_peak, live);
    }
    EXPECT_GE(plan.arena_bytes, live_peak);
    for (size_t i = 0; i < r.size(); ++i) {
      EXPECT_EQ(plan.offsets[i] % 64, 0u);
      EXPECT_LE(plan.offsets[i] + r[i].bytes, plan.arena_bytes);
      for (size_t j = i + 1; j < r.size(); ++j) {
        if (!overlaps_in_time(r[i], r[j])) continue;
        bool disjoint = plan.offsets[i] + r[i].bytes <= plan.offsets[j] || plan.offsets[j] + r[j].bytes <= plan.offsets[i];
        EXPECT_TRUE(disjoint) << "trial " << trial << " tensors " << i << " and " << j;
      }
    }
  }
}

}  // namespace
}  // namespace mote
