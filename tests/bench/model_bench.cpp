// End-to-end latency of the model zoo (ResNet-18 and MobileNetV2 shapes,
// random weights) on the CPU backend with 1 and 2 threads.
#include <benchmark/benchmark.h>

#include "model_zoo.hpp"
#include "mote/mote.hpp"

namespace {

std::shared_ptr<const mote::Model> load(mote::GraphBuilder (*build)(int)) {
  auto bytes = build(1).serialize();
  static std::vector<mote::Tensor> keep_alive;  // models borrow their bytes
  mote::Tensor storage = mote::Tensor::zeros(mote::DType::U8, {static_cast<int64_t>(bytes->size())});
  std::copy(bytes->begin(), bytes->end(), storage.data<uint8_t>());
  keep_alive.push_back(storage);
  return *mote::Model::from_buffer(storage.raw(), storage.bytes(), "zoo");
}

void run_model(benchmark::State& state, mote::GraphBuilder (*build)(int)) {
  auto model = load(build);
  auto session = mote::Session::create(model, {.threads = static_cast<int>(state.range(0))});
  mote::Tensor input = mote::Tensor::zeros(mote::DType::F32, model->inputs()[0].shape);
  for (int64_t i = 0; i < input.numel(); ++i) input.data<float>()[i] = static_cast<float>(i % 255) / 255.0f;
  auto warm = (*session)->run({input});
  if (!warm.ok()) {
    state.SkipWithError(warm.status().to_string().c_str());
    return;
  }
  for (auto _ : state) {
    auto out = (*session)->run({input});
    benchmark::DoNotOptimize(out);
  }
  state.counters["arena_MB"] = static_cast<double>((*session)->plan_stats().arena_bytes) / 1e6;
}

void BM_ResNet18(benchmark::State& state) { run_model(state, &mote::zoo::resnet18); }
void BM_MobileNetV2(benchmark::State& state) { run_model(state, &mote::zoo::mobilenet_v2); }

BENCHMARK(BM_ResNet18)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_MobileNetV2)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

}  // namespace
