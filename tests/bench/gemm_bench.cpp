// Throughput of mote::cpu::sgemm (GFLOP/s counter, wall-clock time).
//
//   mote_microbench --benchmark_filter=Sgemm --benchmark_repetitions=5
//                   --benchmark_report_aggregates_only=true
//
// Square products pack both operands on every call (as MatMul of two
// activations does). Conv-like shapes are im2col products of a ResNet-50
// layer with weights packed once, as the Conv kernel does; FC is a batch-1
// fully connected layer with packed weights.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "runtime/cpu/gemm.hpp"
#include "runtime/cpu/thread_pool.hpp"

namespace mote::cpu {
namespace {

std::vector<float> random_vector(size_t n) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

enum Mode : int64_t { kUnpacked = 0, kPackedA = 1, kPackedB = 2, kPackedAFromL3 = 3 };

// Copies of the packed A that kPackedAFromL3 cycles through: at least this
// many bytes in all, so that each call finds its weights out of L2, as a
// layer inside a network does (the others' weights passed through since).
constexpr size_t kColdWeightBytes = 16u << 20;

// Args: M, N, K, threads, packed operand (0: none, 1: A, 2: B, 3: A, a
// different copy each call).
void BM_Sgemm(benchmark::State& state) {
  const int64_t M = state.range(0), N = state.range(1), K = state.range(2);
  const int threads = static_cast<int>(state.range(3));
  const Mode mode = static_cast<Mode>(state.range(4));
  const std::vector<float> A = random_vector(static_cast<size_t>(M * K));
  const std::vector<float> B = random_vector(static_cast<size_t>(K * N));
  std::vector<float> C(static_cast<size_t>(M * N));
  const std::vector<float> bias = random_vector(static_cast<size_t>(M));
  std::unique_ptr<ThreadPool> pool = threads > 1 ? std::make_unique<ThreadPool>(threads) : nullptr;
  PackedMatrix packed;
  std::vector<PackedMatrix> copies;
  if (mode == kPackedA) packed = pack_a(false, M, K, A.data(), K);
  if (mode == kPackedAFromL3) {
    const size_t count = std::max<size_t>(2, kColdWeightBytes / (static_cast<size_t>(M * K) * sizeof(float)));
    for (size_t i = 0; i < count; ++i) copies.push_back(pack_a(false, M, K, A.data(), K));
  }
  size_t call = 0;
  if (mode == kPackedB) packed = pack_b(false, K, N, B.data(), N);
  GemmEpilogue relu;  // what a Conv + Relu would pass
  relu.row_bias = bias.data();
  relu.clamp_min = 0.0f;

  for (auto _ : state) {
    switch (mode) {
      case kUnpacked:
        sgemm(false, false, M, N, K, 1.0f, A.data(), K, B.data(), N, 0.0f, C.data(), N, {},
              pool.get());
        break;
      case kPackedA:
        sgemm(packed, false, N, 1.0f, B.data(), N, 0.0f, C.data(), N, relu, pool.get());
        break;
      case kPackedB:
        sgemm(false, M, 1.0f, A.data(), K, packed, 0.0f, C.data(), N, {}, pool.get());
        break;
      case kPackedAFromL3:
        sgemm(copies[call++ % copies.size()], false, N, 1.0f, B.data(), N, 0.0f, C.data(), N, relu, pool.get());
        break;
    }
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2e-9 * static_cast<double>(M * N * K),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

void Shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"M", "N", "K", "threads", "packed"});
  for (int64_t threads : {1, 2}) {
    for (int64_t n : {256, 512, 1024}) b->Args({n, n, n, threads, kUnpacked});
    b->Args({64, 3136, 576, threads, kPackedA});   // conv2_x 3x3, 56x56
    b->Args({128, 784, 1152, threads, kPackedA});  // conv3_x 3x3, 28x28
    b->Args({256, 196, 2304, threads, kPackedA});  // conv4_x 3x3, 14x14
    b->Args({49, 512, 4608, threads, kPackedB});   // conv5_x 3x3, 7x7, turned (pixels x channels)
    b->Args({1, 1000, 2048, threads, kPackedB});   // FC, batch 1
    b->Args({1000, 169, 512, threads, kPackedA});  // SqueezeNet 1.1 classifier, 1x1 on 13x13
    // Weights out of L2, as inside a network: ResNet-50's 1x1 layers on
    // 28x28 and 14x14, narrowing and widening, and SqueezeNet's classifier.
    b->Args({128, 784, 512, threads, kPackedAFromL3});
    b->Args({512, 784, 128, threads, kPackedAFromL3});
    b->Args({256, 196, 1024, threads, kPackedAFromL3});
    b->Args({1024, 196, 256, threads, kPackedAFromL3});
    b->Args({1000, 169, 512, threads, kPackedAFromL3});
    b->Args({49, 320, 1152, threads, kPackedB});   // EfficientNet-B0 1x1 on 7x7, turned
    b->Args({49, 1280, 320, threads, kPackedB});   // EfficientNet-B0 head 1x1 on 7x7, turned
    b->Args({256, 3136, 64, threads, kPackedA});   // ResNet-50 layer1 1x1 widening, 56x56
    b->Args({64, 3136, 256, threads, kPackedA});   // ResNet-50 layer1 1x1 narrowing, 56x56
    b->Args({49, 512, 2048, threads, kPackedB});   // ResNet-50 layer4 1x1 narrowing, 7x7, turned
    // Few rows of A (weights), where B (the activations) may be read in place
    // rather than packed (kMaxRowsForBInPlace in gemm_kernel.cpp).
    b->Args({64, 3136, 64, threads, kPackedA});   // ResNet-50 layer1.0 1x1, 56x56
    b->Args({16, 12544, 32, threads, kPackedA});  // MobileNetV2 1x1 narrowing, 112x112
    b->Args({24, 3136, 144, threads, kPackedA});  // MobileNetV2 1x1 narrowing, 56x56
    b->Args({32, 784, 192, threads, kPackedA});   // MobileNetV2 1x1 narrowing, 28x28
    // Shallow: a Winograd point product of SqueezeNet's 55x55 3x3 layer (16
    // input channels, 14x14 tiles), where the write-back weighs as much as k.
    b->Args({64, 196, 16, threads, kPackedA});
  }
}

BENCHMARK(BM_Sgemm)->Apply(Shapes)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace mote::cpu
