// Calibration inputs for --quantize int8 (load_calibration in
// quantize_int8.hpp): .npy files from a folder, or random tensors.
#include <algorithm>
#include <filesystem>
#include <random>

#include "converters/common/npy.hpp"
#include "converters/common/quantize_int8.hpp"

namespace mote::convert {
namespace {

namespace fs = std::filesystem;

Result<std::vector<fs::path>> npy_files(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return not_found("calibration folder '" + dir.string() + "' does not exist");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".npy") files.push_back(entry.path());
  }
  if (ec) return io_error("cannot list '" + dir.string() + "': " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

Result<std::vector<std::map<std::string, Tensor>>> random_samples(const Graph& graph) {
  std::mt19937 rng(2026);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<std::map<std::string, Tensor>> samples(kMinCalibrationSamples);
  for (int v : graph.inputs) {
    const Value& in = graph.values[static_cast<size_t>(v)];
    if (!in.shape_static() || in.dtype != DType::F32) {
      return invalid_argument("--calibrate random needs f32 inputs of static shapes; input '" + in.name + "' is " +
                              dtype_name(in.dtype) + " " + shape_to_string(in.shape) +
                              " (give --input-shape, or a folder of samples)");
    }
    for (auto& sample : samples) {
      Tensor t = Tensor::zeros(DType::F32, in.shape);
      for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = uniform(rng);
      sample[in.name] = std::move(t);
    }
  }
  return samples;
}

}  // namespace

Result<std::vector<std::map<std::string, Tensor>>> load_calibration(const Graph& graph, const std::string& dir) {
  if (dir == "random") return random_samples(graph);
  std::vector<std::map<std::string, Tensor>> samples;
  for (int v : graph.inputs) {
    const std::string& name = graph.values[static_cast<size_t>(v)].name;
    const fs::path folder = graph.inputs.size() == 1 ? fs::path(dir) : fs::path(dir) / name;
    MOTE_ASSIGN_OR_RETURN(std::vector<fs::path> files, npy_files(folder));
    if (files.size() < kMinCalibrationSamples) {
      return invalid_argument("calibration folder '" + folder.string() + "' holds " + std::to_string(files.size()) +
                              " .npy files for input '" + name + "'; at least " +
                              std::to_string(kMinCalibrationSamples) + " are needed");
    }
    if (!samples.empty() && files.size() != samples.size()) {
      return invalid_argument("calibration folder '" + folder.string() + "' holds " + std::to_string(files.size()) +
                              " samples; the other inputs have " + std::to_string(samples.size()));
    }
    samples.resize(files.size());
    for (size_t i = 0; i < files.size(); ++i) {
      auto t = read_npy(files[i].string());
      if (!t.ok()) return t.status().with_context(files[i].string());
      samples[i][name] = std::move(t).value();
    }
  }
  return samples;
}

}  // namespace mote::convert
