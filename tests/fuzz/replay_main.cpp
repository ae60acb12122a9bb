// main() of a fuzz target in builds without libFuzzer: runs the target once
// on every file named, or in the folders named (the seed corpus and the
// regressions of crashes fuzzing found, tests/fuzz/regressions/TARGET), so
// every test run replays them. Exit status 1 when given nothing to replay.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_target.hpp"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    fs::path p(argv[i]);
    if (fs::is_directory(p)) {
      for (const auto& entry : fs::recursive_directory_iterator(p)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
    } else if (fs::exists(p)) {
      files.push_back(p);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "%s: no inputs to replay\n", argc > 0 ? argv[0] : "replay");
    return 1;
  }
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  std::printf("replayed %zu inputs\n", files.size());
  return 0;
}
