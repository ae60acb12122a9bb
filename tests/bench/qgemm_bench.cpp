// Throughput of the int8 GEMM behind QLinearConv (mote::cpu::qgemm,
// GMAC/s counter: multiply-adds per second, wall-clock time), on the
// instruction set this CPU selects.
//
//   mote_microbench --benchmark_filter=Qgemm --benchmark_repetitions=5
//                   --benchmark_report_aggregates_only=true
//
// Shapes are ResNet-18's 3x3 layers as QLinearConv multiplies them: rows
// are output channels, depth input channels x 9, columns the output pixels
// of one tile of B (qlinear_conv.cpp); B is already interleaved, so this is
// the product and the requantising store only. Compare with the CPU's
// multiply-add ceiling (on VNNI x86, 64 per vpdpbusd).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "runtime/cpu/qgemm.hpp"

namespace mote::cpu {
namespace {

// Args: rows, columns, depth.
void BM_Qgemm(benchmark::State& state) {
  const int64_t rows = state.range(0), cols = state.range(1), depth = state.range(2);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> weight(-127, 127), lane(INT32_MIN, INT32_MAX);
  std::vector<int8_t> a8(static_cast<size_t>(rows * depth));
  std::vector<int16_t> a16(a8.size());
  for (size_t i = 0; i < a8.size(); ++i) a16[i] = a8[i] = static_cast<int8_t>(weight(rng));
  const QgemmFormat format = qgemm_format(-127, 127);
  const std::vector<int32_t> packed = qgemm_pack_a(
      format, rows, depth, format == QgemmFormat::kQuads ? static_cast<const void*>(a8.data()) : a16.data());
  const int64_t groups = qgemm_groups(format, depth), step = qgemm_column_step();
  std::vector<int32_t> b(static_cast<size_t>((cols + step - 1) / step * step * groups));
  for (int32_t& v : b) v = lane(rng);
  const std::vector<int32_t> bias(static_cast<size_t>(rows), 1000);
  const std::vector<float> multiplier(static_cast<size_t>(rows), 1e-6f);
  QRequantize rq;
  rq.bias = bias.data();
  rq.multiplier = multiplier.data();
  rq.lo = -128.0f;  // a u8 output with zero point 128
  rq.hi = 127.0f;
  rq.zero = 128;
  std::vector<uint8_t> y(static_cast<size_t>(rows * cols));
  for (auto _ : state) {
    qgemm(format, packed.data(), rows, groups, b.data(), cols, rq, y.data(), cols);
    benchmark::ClobberMemory();
  }
  state.counters["GMAC/s"] = benchmark::Counter(1e-9 * static_cast<double>(rows * cols * depth),
                                                benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_Qgemm)
    ->ArgNames({"rows", "cols", "depth"})
    ->Args({64, 896, 576})    // 64 channels, 56x56: one tile of 896 pixels
    ->Args({128, 448, 1152})  // 128 channels, 28x28
    ->Args({256, 196, 2304})  // 256 channels, 14x14
    ->Args({512, 49, 4608})   // 512 channels, 7x7
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace mote::cpu
