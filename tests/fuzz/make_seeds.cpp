// Writes the seed corpora of the fuzz targets, one folder per target under
// OUT: .mote models (the demo CNN and every ONNX node test of ONNX_NODE_DIR
// that converts), those ONNX files, .npy files of each dtype, pipeline-cache
// files and optimizer-state files as the runtime writes them.
//
//   mote_fuzz_seeds OUT [ONNX_NODE_DIR]   (default /usr/share/libonnx-testdata/data/node)
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "converters/onnx/onnx_converter.hpp"
#include "examples/model_zoo/model_zoo.hpp"
#include "sdk/tools/common/npy.hpp"
#include "tests/fuzz/fuzz_target.hpp"

namespace fs = std::filesystem;
using namespace mote;

namespace {

void write(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
}

int fail(const std::string& what, const Status& st) {
  std::fprintf(stderr, "mote_fuzz_seeds: %s: %s\n", what.c_str(), st.to_string().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT [ONNX_NODE_DIR]\n", argv[0]);
    return 2;
  }
  const fs::path out(argv[1]);
  const fs::path node_dir(argc > 2 ? argv[2] : "/usr/share/libonnx-testdata/data/node");
  for (const char* target : {"model", "onnx", "npy", "pipeline_cache", "optimizer_state"}) {
    fs::create_directories(out / target);
  }

  auto cnn = zoo::small_cnn().serialize();
  if (!cnn.ok()) return fail("small_cnn", cnn.status());
  write(out / "model" / "small_cnn.mote", *cnn);
  int onnx_seeds = 0, mote_seeds = 1;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(node_dir, ec)) {
    fs::path onnx = entry.path() / "model.onnx";
    if (!fs::exists(onnx)) continue;
    std::string name = entry.path().filename().string();
    fs::copy_file(onnx, out / "onnx" / (name + ".onnx"), fs::copy_options::overwrite_existing);
    ++onnx_seeds;
    auto converted = convert::convert_onnx_file(onnx.string(), {});
    if (!converted.ok()) continue;  // ops Mote does not have: still an ONNX seed
    write(out / "model" / (name + ".mote"), converted->mote);
    ++mote_seeds;
  }

  int npy_seeds = 0;
  for (DType dtype : {DType::F32, DType::F16, DType::F64, DType::I8, DType::U8, DType::I32, DType::I64, DType::Bool}) {
    for (const Shape& shape : {Shape{}, Shape{3}, Shape{2, 3}, Shape{1, 0, 4}}) {
      auto bytes = tools::encode_npy(Tensor::zeros(dtype, shape));
      if (!bytes.ok()) return fail("encode_npy", bytes.status());
      write(out / "npy" / (std::string(dtype_name(dtype)) + "_" + std::to_string(npy_seeds++) + ".npy"), *bytes);
    }
  }

  const vk::PipelineCacheKey key = fuzz::seed_cache_key();
  std::vector<uint8_t> blob(48);
  for (size_t i = 0; i < blob.size(); ++i) blob[i] = static_cast<uint8_t>(i * 13);
  write(out / "pipeline_cache" / "empty.bin", vk::encode_pipeline_cache(key, {}));
  write(out / "pipeline_cache" / "blob.bin", vk::encode_pipeline_cache(key, blob));

  // Optimizer state after 0, 1 and 3 steps of the target's own model.
  const fs::path model_path = out / "optimizer_state" / "model.mote";
  if (Status st = fuzz::optimizer_seed_model().save(model_path.string()); !st.ok()) return fail("seed model", st);
  auto model = Model::load(model_path.string());
  if (!model.ok()) return fail("seed model", model.status());
  auto trainer = TrainingSession::create(*model, fuzz::optimizer_seed_options());
  if (!trainer.ok()) return fail("training session", trainer.status());
  Tensor x = Tensor::from_vector<float>({4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  Tensor labels = Tensor::from_vector<int64_t>({4}, {0, 1, 1, 0});
  for (int steps : {0, 1, 3}) {
    while ((*trainer)->step() < steps) {
      if (auto loss = (*trainer)->train_step({x}, labels); !loss.ok()) return fail("train_step", loss.status());
    }
    const fs::path saved = out / "optimizer_state" / ("after_" + std::to_string(steps) + ".mote");
    if (Status st = (*trainer)->save(saved.string()); !st.ok()) return fail("save", st);
    fs::remove(saved);  // the checkpoint itself; its .optimizer file is the seed
  }
  fs::remove(model_path);

  std::printf("seeds: %d .mote models, %d ONNX models, %d .npy, 2 pipeline caches, 3 optimizer states in %s\n",
              mote_seeds, onnx_seeds, npy_seeds, out.c_str());
  return 0;
}
