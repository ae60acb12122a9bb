// Packs intermediate tensors into one arena by liveness: two tensors share
// bytes only when their lifetimes (first and last step that touches them)
// do not overlap. Greedy by size, largest first, each placed at the lowest
// offset that fits between already placed, time-overlapping tensors; the
// approach TFLite's arena planner takes, and within a few percent of optimal
// on CNNs.
#pragma once

#include <cstdint>
#include <vector>

namespace mote {

struct LifetimeRequest {
  uint64_t bytes = 0;
  int first_step = 0;  // step that writes it
  int last_step = 0;   // last step that reads it (>= first_step)
};

struct MemoryPlan {
  std::vector<uint64_t> offsets;  // one per request, multiples of `alignment`
  uint64_t arena_bytes = 0;       // peak: max(offset + bytes)
  uint64_t unshared_bytes = 0;    // sum of aligned sizes, for comparison
};

MemoryPlan plan_memory(const std::vector<LifetimeRequest>& requests, uint64_t alignment = 64);

}  // namespace mote
