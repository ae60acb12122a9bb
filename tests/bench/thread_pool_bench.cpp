// The cost of one fork-join of the CPU kernels' thread pool: what every
// parallel kernel pays on top of its work, twice for a GEMM that packs in
// parallel first. Empty tasks, back to back (the workers spinning) and after
// a stretch of single-threaded work as long as a small layer (the workers
// may have gone to sleep).
//
//   mote_microbench --benchmark_filter=ThreadPool
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>

#include "runtime/cpu/thread_pool.hpp"

namespace mote {
namespace {

// Busy work on the calling thread for about `us` microseconds.
void spin_for_us(int64_t us) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < end) {
  }
}

void BM_ThreadPoolRun(benchmark::State& state) {
  ThreadPool pool(static_cast<int>(state.range(0)));
  const int64_t gap_us = state.range(1);
  for (auto _ : state) {
    if (gap_us > 0) {
      state.PauseTiming();
      spin_for_us(gap_us);
      state.ResumeTiming();
    }
    pool.run(pool.size() * 4, [](int64_t task) { benchmark::DoNotOptimize(task); });
  }
}
BENCHMARK(BM_ThreadPoolRun)->ArgsProduct({{2}, {0, 20, 200}})->UseRealTime();

}  // namespace
}  // namespace mote
