// mote_soak: runs one zoo model many times on one backend and checks that
// resident memory stays flat: after the warm-up, no sample may exceed the
// first by more than 1 % (docs/reliability.md, "Soak").
//
//   mote_soak [--backend cpu|vulkan] [--runs N] [--warmup N] [--model small_cnn|mobilenet_v2|resnet18]
//
// platforms/linux/soak.sh runs 10,000 runs per backend; CTest runs a short one.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "examples/model_zoo/model_zoo.hpp"
#include "mote/mote.hpp"
#include "tests/support/model_util.hpp"

namespace {

// Resident set size in bytes, from /proc/self/statm.
uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

int usage(const char* why) {
  std::fprintf(stderr, "mote_soak: %s\nusage: mote_soak [--backend cpu|vulkan] [--runs N] [--warmup N] [--model NAME]\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string backend = "cpu", model_name = "small_cnn";
  long runs = 10000, warmup = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--backend") backend = value;
    else if (flag == "--runs") runs = std::atol(value.c_str());
    else if (flag == "--warmup") warmup = std::atol(value.c_str());
    else if (flag == "--model") model_name = value;
    else return usage(("unknown flag " + flag).c_str());
  }
  if (argc % 2 == 0) return usage("every flag takes a value");
  if (runs <= warmup || warmup < 1) return usage("--runs must exceed --warmup, which must be at least 1");
  const mote::zoo::ZooModel* zoo = nullptr;
  for (const auto& m : mote::zoo::all_models()) zoo = m.name == model_name ? &m : zoo;
  if (!zoo) return usage(("unknown model " + model_name).c_str());
  auto parsed = mote::parse_backend(backend);
  if (!parsed.ok()) return usage(parsed.status().message().c_str());

  auto model = mote::test::load_built(zoo->build(1), model_name + ".mote");
  if (!model) return 1;
  mote::SessionOptions options;
  options.backend = *parsed;
  options.threads = 1;
  auto session = mote::Session::create(model, options);
  if (!session.ok()) return std::fprintf(stderr, "%s\n", session.status().to_string().c_str()), 1;
  std::vector<mote::Tensor> inputs;
  for (const auto& desc : model->inputs()) inputs.push_back(mote::Tensor::zeros(desc.dtype, desc.shape));

  uint64_t baseline = 0, peak = 0;
  const long report_every = runs / 10;
  for (long r = 1; r <= runs; ++r) {
    auto out = (*session)->run(inputs);
    if (!out.ok()) return std::fprintf(stderr, "run %ld: %s\n", r, out.status().to_string().c_str()), 1;
    // The progress line is printed at the end of the warm-up too, so the
    // first one's stdio buffer is in the baseline rather than counted as growth.
    if (r % report_every == 0 || r == warmup) {
      std::printf("%s %s: run %ld, resident %.2f MiB\n", model_name.c_str(), backend.c_str(), r,
                  static_cast<double>(resident_bytes()) / (1 << 20));
      std::fflush(stdout);
    }
    if (r == warmup) baseline = peak = resident_bytes();
    if (r > warmup) peak = std::max(peak, resident_bytes());
  }
  const double growth = 100.0 * (static_cast<double>(peak) - static_cast<double>(baseline)) / static_cast<double>(baseline);
  std::printf("%s on %s (%s): %ld runs; resident after %ld warm-up runs %.2f MiB, peak after it %.2f MiB (%+.2f %%)\n",
              model_name.c_str(), backend.c_str(), (*session)->plan_stats().device_name.empty() ? "cpu"
                                                     : (*session)->plan_stats().device_name.c_str(),
              runs, warmup, static_cast<double>(baseline) / (1 << 20), static_cast<double>(peak) / (1 << 20), growth);
  if (growth > 1.0) {
    std::fprintf(stderr, "mote_soak: resident memory grew by %.2f %% (limit 1 %%)\n", growth);
    return 1;
  }
  return 0;
}
