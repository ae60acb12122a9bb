#include "sdk/tools/common/timing.hpp"

#include <algorithm>
#include <numeric>

namespace mote::tools {

LatencyStats summarize_latency(std::vector<double> samples_ms) {
  LatencyStats stats;
  if (samples_ms.empty()) return stats;
  std::sort(samples_ms.begin(), samples_ms.end());
  size_t n = samples_ms.size();
  stats.count = n;
  stats.min_ms = samples_ms.front();
  stats.median_ms = n % 2 ? samples_ms[n / 2] : (samples_ms[n / 2 - 1] + samples_ms[n / 2]) / 2;
  stats.mean_ms = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / static_cast<double>(n);
  return stats;
}

}  // namespace mote::tools
