// The machine's fp32 multiply-add ceiling, the yardstick for GEMM and
// convolution throughput (docs/benchmarks.md gives kernels as a fraction of
// it): each thread runs independent chains of vector FMAs on registers, with
// no memory traffic, through the widest SIMD target Highway picks here.
//
//   mote_microbench --benchmark_filter=FmaPeak --benchmark_repetitions=5
//
// Sixteen chains cover 4 cycles of FMA latency on two ports with room to
// spare; a counter-check (8 chains) shows whether that holds on a new CPU.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>

#include "runtime/cpu/thread_pool.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tests/bench/fma_peak_bench.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace mote::bench::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Runs `steps` rounds of `kChains` FMAs and returns the flops done.
template <int kChains>
double FmaChains(int64_t steps) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  V acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = hn::Set(d, 1.0f + 1e-3f * static_cast<float>(c));
  // Close to 1 so the chains neither overflow nor turn denormal.
  const V mul = hn::Set(d, 0.999999f);
  const V add = hn::Set(d, 1e-7f);
  for (int64_t s = 0; s < steps; ++s) {
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c) acc[c] = hn::MulAdd(acc[c], mul, add);
  }
  V sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = hn::Add(sum, acc[c]);
  // Keeps the chains live.
  benchmark::DoNotOptimize(hn::GetLane(sum));
  return 2.0 * kChains * static_cast<double>(steps) * static_cast<double>(hn::Lanes(d));
}

double Fma16(int64_t steps) { return FmaChains<16>(steps); }
double Fma8(int64_t steps) { return FmaChains<8>(steps); }

}  // namespace mote::bench::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::bench {
HWY_EXPORT(Fma16);
HWY_EXPORT(Fma8);
namespace {

// Args: threads, chains.
void BM_FmaPeak(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const bool sixteen = state.range(1) == 16;
  std::unique_ptr<mote::ThreadPool> pool = threads > 1 ? std::make_unique<mote::ThreadPool>(threads) : nullptr;
  constexpr int64_t kSteps = 1 << 20;
  const auto work = [&](int64_t) {
    return sixteen ? HWY_DYNAMIC_DISPATCH(Fma16)(kSteps) : HWY_DYNAMIC_DISPATCH(Fma8)(kSteps);
  };
  for (auto _ : state) {
    if (pool) {
      pool->run(threads, [&](int64_t t) { work(t); });
    } else {
      work(0);
    }
  }
  // A one-step call returns the flops of one step of one thread.
  const double step_flops = sixteen ? HWY_DYNAMIC_DISPATCH(Fma16)(1) : HWY_DYNAMIC_DISPATCH(Fma8)(1);
  const double per_iteration = static_cast<double>(threads) * step_flops * static_cast<double>(kSteps);
  state.counters["GFLOP/s"] = benchmark::Counter(per_iteration * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_FmaPeak)
    ->ArgNames({"threads", "chains"})
    ->Args({1, 16})
    ->Args({1, 8})
    ->Args({2, 16})
    ->Args({2, 8})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace mote::bench
#endif  // HWY_ONCE
