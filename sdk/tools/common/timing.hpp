// Wall-clock timing and the latency summary the tools print.
#pragma once

#include <chrono>
#include <vector>

namespace mote::tools {

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

struct LatencyStats {
  size_t count = 0;
  double min_ms = 0;
  double median_ms = 0;  // mean of the middle two for an even count
  double mean_ms = 0;
};

// All zero for no samples.
LatencyStats summarize_latency(std::vector<double> samples_ms);

}  // namespace mote::tools
