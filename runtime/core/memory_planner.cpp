#include "runtime/core/memory_planner.hpp"

#include <algorithm>
#include <numeric>

namespace mote {

MemoryPlan plan_memory(const std::vector<LifetimeRequest>& requests, uint64_t alignment) {
  MemoryPlan plan;
  plan.offsets.assign(requests.size(), 0);
  auto aligned = [&](uint64_t b) { return (b + alignment - 1) / alignment * alignment; };

  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return requests[a].bytes > requests[b].bytes; });

  struct Placed {
    uint64_t begin, end;
  };
  std::vector<size_t> placed;
  std::vector<Placed> conflicts;
  for (size_t index : order) {
    const LifetimeRequest& r = requests[index];
    uint64_t size = aligned(r.bytes);
    plan.unshared_bytes += size;
    conflicts.clear();
    for (size_t other : placed) {
      const LifetimeRequest& o = requests[other];
      bool overlap = r.first_step <= o.last_step && o.first_step <= r.last_step;
      if (overlap) conflicts.push_back({plan.offsets[other], plan.offsets[other] + aligned(o.bytes)});
    }
    std::sort(conflicts.begin(), conflicts.end(), [](const Placed& a, const Placed& b) { return a.begin < b.begin; });
    uint64_t offset = 0;
    for (const Placed& c : conflicts) {
      if (offset + size <= c.begin) break;  // fits in the gap before c
      offset = std::max(offset, c.end);
    }
    plan.offsets[index] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + size);
    placed.push_back(index);
  }
  return plan;
}

}  // namespace mote
