// What zero-copy inputs and outputs save on unified memory
// (Session::mapped_input, mapped_output), on Vulkan runs over a 4x3x512x512
// f32 tensor (12 MiB):
// - MappedInput: GlobalAveragePool (a tiny output), the input copied in from
//   a host Tensor, or written in place;
// - MappedOutput: Relu, its input written in place in both, the output
//   copied out to a Tensor of its own, or read in place;
// - CallerMemory (Session::import_input, import_output): Relu with both its
//   input and output in the caller's own memory, against both copied.
//
//   mote_microbench --benchmark_filter='Mapped|CallerMemory'
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>

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

// How a run gets its input and hands out its output.
enum class Io {
  kCopied,  // a host Tensor of the caller's, copied in or out
  kMapped,  // the device's memory (mapped_input, mapped_output)
  kCaller,  // the caller's own memory (import_input, import_output)
};

// Memory as a caller allocates it for import: aligned, its size rounded up.
struct CallerBuffer {
  std::unique_ptr<void, decltype(&std::free)> data{nullptr, &std::free};
  size_t bytes = 0;
};

Result<CallerBuffer> caller_buffer(const Session& session, size_t bytes) {
  const size_t alignment = session.import_alignment();
  if (!alignment) return unsupported("the device cannot import host memory");
  CallerBuffer b;
  b.bytes = (bytes + alignment - 1) / alignment * alignment;
  b.data.reset(std::aligned_alloc(alignment, b.bytes));
  if (!b.data) return Status(StatusCode::kOutOfMemory, "aligned_alloc of " + std::to_string(b.bytes) + " bytes");
  return b;
}

void run_model(benchmark::State& state, fb::OpType op, Io input_io, Io output_io) {
  // Declared first: the caller's memory must outlive the session importing it.
  CallerBuffer input_memory, output_memory;
  auto f = make_fixture(op);
  if (!f.ok()) {
    state.SkipWithError(f.status().to_string().c_str());
    return;
  }
  const auto skip = [&](const Status& why) { state.SkipWithError(why.to_string().c_str()); };
  // The output first: its first mapped_output plans again, and an input view
  // taken before would then be the old plan's memory, copied every run.
  if (output_io == Io::kMapped) {
    auto view = f->session->mapped_output("y");
    if (!view.ok()) return skip(view.status());
  } else if (output_io == Io::kCaller) {
    auto memory = caller_buffer(*f->session, f->host.bytes());
    if (!memory.ok()) return skip(memory.status());
    output_memory = std::move(memory).value();
    auto view = f->session->import_output("y", output_memory.data.get(), output_memory.bytes);
    if (!view.ok()) return skip(view.status());
  }
  Tensor input = f->host;
  if (input_io == Io::kMapped) {
    auto view = f->session->mapped_input("x");
    if (!view.ok()) return skip(view.status());
    input = *view;
  } else if (input_io == Io::kCaller) {
    auto memory = caller_buffer(*f->session, f->host.bytes());
    if (!memory.ok()) return skip(memory.status());
    input_memory = std::move(memory).value();
    auto view = f->session->import_input("x", input_memory.data.get(), input_memory.bytes);
    if (!view.ok()) return skip(view.status());
    input = *view;
  }
  if (input_io != Io::kCopied) {
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

void BM_MappedInput_Copied(benchmark::State& state) {
  run_model(state, fb::OpType::GlobalAveragePool, Io::kCopied, Io::kCopied);
}
void BM_MappedInput_InPlace(benchmark::State& state) {
  run_model(state, fb::OpType::GlobalAveragePool, Io::kMapped, Io::kCopied);
}
void BM_MappedOutput_Copied(benchmark::State& state) { run_model(state, fb::OpType::Relu, Io::kMapped, Io::kCopied); }
void BM_MappedOutput_InPlace(benchmark::State& state) {
  run_model(state, fb::OpType::Relu, Io::kMapped, Io::kMapped);
}
void BM_CallerMemory_Copied(benchmark::State& state) { run_model(state, fb::OpType::Relu, Io::kCopied, Io::kCopied); }
void BM_CallerMemory_Imported(benchmark::State& state) {
  run_model(state, fb::OpType::Relu, Io::kCaller, Io::kCaller);
}
BENCHMARK(BM_MappedInput_Copied)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MappedInput_InPlace)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MappedOutput_Copied)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MappedOutput_InPlace)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CallerMemory_Copied)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CallerMemory_Imported)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace mote
