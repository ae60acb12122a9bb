// mote-make-models: writes the model zoo (random weights) as .mote files, for
// the demo and the benchmarks.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "model_zoo.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Write benchmark and demo models (random weights) as .mote files"};
  std::string out_dir = "models";
  int batch = 1;
  std::vector<std::string> only;
  app.add_option("output_dir", out_dir, "Directory to write NAME.mote into")->capture_default_str();
  app.add_option("--batch", batch, "Batch size of the input")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--only", only, "Write only these models (small_cnn, mobilenet_v2, resnet18)");
  CLI11_PARSE(app, argc, argv);

  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "mote-make-models: cannot create %s: %s\n", out_dir.c_str(), ec.message().c_str());
    return 1;
  }
  for (const auto& m : mote::zoo::all_models()) {
    if (!only.empty() && std::find(only.begin(), only.end(), m.name) == only.end()) continue;
    auto start = std::chrono::steady_clock::now();
    mote::GraphBuilder b = m.build(batch);
    std::string path = out_dir + "/" + m.name + ".mote";
    mote::Status st = b.save(path);
    if (!st.ok()) {
      std::fprintf(stderr, "mote-make-models: %s\n", st.to_string().c_str());
      return 1;
    }
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("wrote %-28s %4d ops  %8.2f MB  (%.0f ms)  %s\n", path.c_str(), b.op_count(),
                static_cast<double>(std::filesystem::file_size(path)) / 1e6, ms, m.description.c_str());
  }
  return 0;
}
