// Throughput of the elementwise CPU kernels through the registry, as a
// session calls them (bytes read + written per second).
//
//   mote_microbench --benchmark_filter='Binary|Unary|Where|Cast'
//
// Binary layouts: the broadcast iterator's fast paths (same shape, scalar,
// channel bias, row bias, per-(N, C) scale of a squeeze-excite block) and an
// outer product of short rows, its worst case.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "mote/tensor.hpp"
#include "runtime/core/attrs.hpp"
#include "runtime/core/registry.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/cpu/thread_pool.hpp"

namespace mote {
namespace {

Tensor random_tensor(DType dtype, const Shape& shape) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  Tensor t = Tensor::zeros(dtype, shape);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (dtype == DType::F32) t.data<float>()[i] = dist(rng);
    if (dtype == DType::Bool) t.data<bool>()[i] = dist(rng) > 0;
  }
  return t;
}

// Runs the optimised kernel of `op` on `inputs` into a preallocated output.
void run_kernel(benchmark::State& state, const fb::OpT& op, const std::vector<Tensor>& inputs, DType out_dtype,
                int threads) {
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) shapes.push_back(t.shape());
  Tensor out = Tensor::zeros(out_dtype, *broadcast_shapes(shapes));
  ThreadPool pool(threads);
  KernelContext ctx{op, {}, {&out}, &pool, nullptr};
  for (const Tensor& t : inputs) ctx.inputs.push_back(&t);
  const CpuKernel* kernel = find_cpu_kernel(op.type);
  for (auto _ : state) {
    Status s = kernel->run(ctx);
    benchmark::DoNotOptimize(s);
    benchmark::ClobberMemory();
  }
  int64_t bytes = static_cast<int64_t>(out.bytes());
  for (const Tensor& t : inputs) bytes += static_cast<int64_t>(t.bytes());
  state.SetBytesProcessed(state.iterations() * bytes);
}

fb::OpT make_op(fb::OpType type) {
  fb::OpT op;
  op.type = type;
  return op;
}

// Args: layout, threads.
void BM_BinaryAdd(benchmark::State& state) {
  static const std::vector<std::pair<Shape, Shape>> layouts = {
      {{1, 64, 112, 112}, {1, 64, 112, 112}},  // 0 same shape
      {{1, 64, 112, 112}, {}},                 // 1 scalar
      {{1, 64, 112, 112}, {64, 1, 1}},         // 2 channel bias
      {{784, 1024}, {1024}},                   // 3 row bias
      {{8, 256, 28, 28}, {8, 256, 1, 1}},      // 4 squeeze-excite scale
      {{4096, 1}, {1, 3}},                     // 5 outer product, rows of 3
  };
  const auto& [a, b] = layouts[static_cast<size_t>(state.range(0))];
  run_kernel(state, make_op(fb::OpType::Add), {random_tensor(DType::F32, a), random_tensor(DType::F32, b)},
             DType::F32, static_cast<int>(state.range(1)));
}
BENCHMARK(BM_BinaryAdd)->ArgsProduct({{0, 1, 2, 3, 4, 5}, {1, 2}})->UseRealTime();

void BM_BinaryLess(benchmark::State& state) {
  run_kernel(state, make_op(fb::OpType::Less),
             {random_tensor(DType::F32, {1, 64, 112, 112}), random_tensor(DType::F32, {64, 1, 1})}, DType::Bool,
             static_cast<int>(state.range(0)));
}
BENCHMARK(BM_BinaryLess)->Arg(1)->Arg(2)->UseRealTime();

void BM_Where(benchmark::State& state) {
  run_kernel(state, make_op(fb::OpType::Where),
             {random_tensor(DType::Bool, {8, 1, 128, 128}), random_tensor(DType::F32, {8, 12, 128, 128}),
              random_tensor(DType::F32, {})},
             DType::F32, static_cast<int>(state.range(0)));
}
BENCHMARK(BM_Where)->Arg(1)->Arg(2)->UseRealTime();

// Args: op type, threads.
void BM_Unary(benchmark::State& state) {
  fb::OpT op = make_op(static_cast<fb::OpType>(state.range(0)));
  state.SetLabel(fb::EnumNameOpType(op.type));
  run_kernel(state, op, {random_tensor(DType::F32, {1 << 20})}, DType::F32, static_cast<int>(state.range(1)));
}
BENCHMARK(BM_Unary)
    ->ArgsProduct({{static_cast<int64_t>(fb::OpType::Relu), static_cast<int64_t>(fb::OpType::Exp),
                    static_cast<int64_t>(fb::OpType::Sigmoid), static_cast<int64_t>(fb::OpType::Tanh),
                    static_cast<int64_t>(fb::OpType::Erf), static_cast<int64_t>(fb::OpType::Gelu),
                    static_cast<int64_t>(fb::OpType::Sin)},
                   {1, 2}})
    ->UseRealTime();

void BM_CastF32ToF16(benchmark::State& state) {
  fb::OpT op = make_op(fb::OpType::Cast);
  fb::CastAttrsT to;
  to.to = DType::F16;
  set_attrs(op, to);
  Tensor x = random_tensor(DType::F32, {1 << 20});
  Tensor out = Tensor::zeros(DType::F16, x.shape());
  ThreadPool pool(static_cast<int>(state.range(0)));
  KernelContext ctx{op, {&x}, {&out}, &pool, nullptr};
  const CpuKernel* kernel = find_cpu_kernel(op.type);
  for (auto _ : state) {
    Status s = kernel->run(ctx);
    benchmark::DoNotOptimize(s);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(x.bytes() + out.bytes()));
}
BENCHMARK(BM_CastF32ToF16)->Arg(1)->Arg(2)->UseRealTime();

}  // namespace
}  // namespace mote
