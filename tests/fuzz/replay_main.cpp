// main() of a fuzz target in builds without libFuzzer. It runs the target
// once on every file named, or in the folders named (the seed corpus and the
// regressions of crashes fuzzing found, tests/fuzz/regressions/TARGET), so
// every test run replays them. With --mutate SECONDS and/or --runs COUNT it
// then feeds the target random edits of those inputs (tests/fuzz/mutator.hpp)
// until the time is up or COUNT edits have run, whichever comes first. CI's
// bounded fuzzing in the sanitizer build gives a count only: with a --seed,
// the same inputs on every machine, however fast.
//
//   mote_fuzz_TARGET [--mutate SECONDS] [--runs COUNT] [--seed N] [--save FILE] INPUT...
//
// --save writes each mutated input to FILE before running it, so the one a
// sanitizer stops on is there to keep. Exit status 1 when given no inputs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_target.hpp"
#include "tests/fuzz/mutator.hpp"

namespace fs = std::filesystem;
using mote::fuzz::Bytes;

namespace {

constexpr size_t kMaxMutatedSize = size_t{1} << 20;

Bytes read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

int usage(const char* self, const std::string& why) {
  std::fprintf(stderr, "%s: %s\nusage: %s [--mutate SECONDS] [--runs COUNT] [--seed N] [--save FILE] INPUT...\n",
               self, why.c_str(), self);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const char* self = argc > 0 ? argv[0] : "replay";
  double mutate_seconds = 0;
  uint64_t max_runs = 0;
  uint64_t seed = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  std::string save;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--mutate" || arg == "--runs" || arg == "--seed" || arg == "--save") {
      if (!has_value) return usage(self, arg + " needs a value");
      const char* value = argv[++i];
      if (arg == "--mutate") mutate_seconds = std::atof(value);
      if (arg == "--runs") max_runs = std::strtoull(value, nullptr, 10);
      if (arg == "--seed") seed = std::strtoull(value, nullptr, 10);
      if (arg == "--save") save = value;
      continue;
    }
    fs::path p(arg);
    if (fs::is_directory(p)) {
      for (const auto& entry : fs::recursive_directory_iterator(p)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
    } else if (fs::exists(p)) {
      files.push_back(p);
    }
  }
  if (files.empty()) return usage(self, "no inputs to replay");
  // Directory order is unspecified: sorted, a --seed picks the same inputs everywhere.
  std::sort(files.begin(), files.end());

  std::vector<Bytes> inputs;
  for (const fs::path& file : files) {
    inputs.push_back(read_file(file));
    LLVMFuzzerTestOneInput(inputs.back().data(), inputs.back().size());
  }
  std::printf("replayed %zu inputs\n", files.size());
  if (mutate_seconds <= 0 && max_runs == 0) return 0;

  if (max_runs > 0) {
    std::printf("mutating %llu inputs", static_cast<unsigned long long>(max_runs));
    if (mutate_seconds > 0) std::printf(" or for %.0f s", mutate_seconds);
  } else {
    std::printf("mutating for %.0f s", mutate_seconds);
  }
  std::printf(", seed %llu\n", static_cast<unsigned long long>(seed));
  std::fflush(stdout);
  std::mt19937_64 rng(seed);
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(mutate_seconds);
  uint64_t runs = 0;
  while ((max_runs == 0 || runs < max_runs) &&
         (mutate_seconds <= 0 || std::chrono::steady_clock::now() < deadline)) {
    Bytes bytes = inputs[rng() % inputs.size()];
    mote::fuzz::mutate(bytes, inputs[rng() % inputs.size()], rng, kMaxMutatedSize);
    if (!save.empty()) write_file(save, bytes);
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    ++runs;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("ran %llu mutated inputs in %.0f s (%.0f per second), no crash\n", static_cast<unsigned long long>(runs),
              seconds, static_cast<double>(runs) / seconds);
  if (!save.empty()) fs::remove(save);
  return 0;
}
