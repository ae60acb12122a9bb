// The cost of one fork-join of the CPU kernels' thread pool: what every
// parallel kernel pays on top of its work, twice for a GEMM that packs in
// parallel first. Empty tasks, back to back (the workers spinning) and after
// a stretch of single-threaded work as long as a small layer (the workers
// may have gone to sleep).
//
//   mote_microbench --benchmark_filter=ThreadPool
//
// Also the host's cross-core round trip (BM_CrossCoreRoundTrip): two threads
// handing a cache line back and forth, which is what every fork-join and
// every read of the other thread's output waits for. On the 2-vCPU VMs this
// project is measured on it is 90-170 ns most of the time and 300-2,000 ns
// in spells that last seconds, when 2-thread runs of any runtime lose most
// of their speed-up; tests/bench/peers/peer_bench.py records it with every
// timed sample (--probe) so that such samples can be told apart.
//
//   mote_microbench --benchmark_filter=CrossCoreRoundTrip
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

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

// ns per round trip of a flag between two threads (no pause instruction in
// the loops: a hypervisor may take a pausing vCPU off its core).
void BM_CrossCoreRoundTrip(benchmark::State& state) {
  const int64_t trips = state.range(0);
  for (auto _ : state) {
    std::atomic<int64_t> flag{0};
    std::thread other([&] {
      for (int64_t i = 0; i < trips; ++i) {
        while (flag.load(std::memory_order_acquire) != 2 * i + 1) {
        }
        flag.store(2 * i + 2, std::memory_order_release);
      }
    });
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < trips; ++i) {
      flag.store(2 * i + 1, std::memory_order_release);
      while (flag.load(std::memory_order_acquire) != 2 * i + 2) {
      }
    }
    const auto elapsed = std::chrono::steady_clock::now() - start;
    other.join();
    state.counters["ns_per_round_trip"] =
        std::chrono::duration<double, std::nano>(elapsed).count() / static_cast<double>(trips);
  }
}
BENCHMARK(BM_CrossCoreRoundTrip)->Arg(20000)->Iterations(1)->UseRealTime();

}  // namespace
}  // namespace mote
