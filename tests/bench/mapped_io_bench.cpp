// What zero-copy inputs and outputs save on unified memory
// (Session::mapped_input, mapped_output), on Vulkan runs over a 4x3x512x512
// f32 tensor (12 MiB):
// - MappedInput: GlobalAveragePool (a tiny output), the input copied in from
//   a host Tensor, or written in place;
// - MappedOutput: Relu, its input written in place in both, the output
//   copied out to a Tensor of its own, or read in place.
//
//   mote_microbench --benchmark_filter=Mapped
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>

#include "mote/mote.hpp"

namespace mote {
namespace {

struct Fixture {
  std::shared_ptr<Tensor> bytes;  // the model, used in place
  std::shared_ptr<const Model> model;
  std::unique_ptr<Session> session;
  Tensor host;
};

Result<Fixture> make_fixture(fb::OpType op) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {4, 3, 512, 512});
  b.mark_output(b.add_op(op, {x})[0], "y");
  MOTE_ASSIGN_OR_RETURN(std::vector<uint8_t> file, b.serialize());
  Fixture f;
  f.bytes = std::make_shared<Tensor>(Tensor::zeros(DType::U8, {static_cast<int64_t>(file.size())}));
  std::copy(file.begin(), file.end(), f.bytes->data<uint8_t>());
  MOTE_ASSIGN_OR_RETURN(f.model, Model::from_buffer(f.bytes->raw(), f.bytes->bytes(), "mapped_io.mote"));
  SessionOptions options;
  options.backend = Backend::kVulkan;
  options.min_gpu_island_elements = 0;  // the pool's output is small: keep it on the GPU anyway
  MOTE_ASSIGN_OR_RETURN(f.session, Session::create(f.model, options));
  MOTE_RETURN_IF_ERROR(f.session->prepare());
  if (f.session->plan_stats().ops_gpu == 0) return unsupported("no Vulkan device");
  f.host = Tensor::zeros(DType::F32, {4, 3, 512, 512});
  for (int64_t i = 0; i < f.host.numel(); ++i) f.host.data<float>()[i] = static_cast<float>(i % 251) / 251.0f;
  return f;
}

void run_model(benchmark::State& state, fb::OpType op, bool input_in_place, bool output_in_place) {
  auto f = make_fixture(op);
  if (!f.ok()) {
    state.SkipWithError(f.status().to_string().c_str());
    return;
  }
  // The output first: its first mapped_output plans again, and an input view
  // taken before would then be the old plan's memory, copied every run.
  if (output_in_place) {
    auto view = f->session->mapped_output("y");
    if (!view.ok()) {
      state.SkipWithError(view.status().to_string().c_str());
      return;
    }
  }
  Tensor input = f->host;
  if (input_in_place) {
    auto view = f->session->mapped_input("x");
    if (!view.ok()) {
      state.SkipWithError(view.status().to_string().c_str());
      return;
    }
    input = *view;
    std::copy(f->host.data<float>(), f->host.data<float>() + f->host.numel(), input.data<float>());
  }
  const std::vector<Tensor> inputs{input};
  for (auto _ : state) {
    auto out = f->session->run(inputs);
    if (!out.ok()) {
      state.SkipWithError(out.status().to_string().c_str());
      return;
    }
    benchmark::DoNotOptimize(out->at(0).raw());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(f->host.bytes()));
}

void BM_MappedInput_Copied(benchmark::State& state) { run_model(state, fb::OpType::GlobalAveragePool, false, false); }
void BM_MappedInput_InPlace(benchmark::State& state) { run_model(state, fb::OpType::GlobalAveragePool, true, false); }
void BM_MappedOutput_Copied(benchmark::State& state) { run_model(state, fb::OpType::Relu, true, false); }
void BM_MappedOutput_InPlace(benchmark::State& state) { run_model(state, fb::OpType::Relu, true, true); }
BENCHMARK(BM_MappedInput_Copied)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MappedInput_InPlace)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MappedOutput_Copied)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MappedOutput_InPlace)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace mote
