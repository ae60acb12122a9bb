// Fuzz target: the optimizer-state file TrainingSession::save writes beside
// a checkpoint (PATH.optimizer) and restore_optimizer reads back. Bytes that
// restore must leave a session that trains; the rest must be refused.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "mote/graph_builder.hpp"
#include "mote/training.hpp"
#include "tests/fuzz/fuzz_target.hpp"

namespace {

using namespace mote;

// The model the seeds were trained from (make_seeds.cpp writes them with the
// same function): x [4, 3] -> Gemm -> logits [4, 2], AdamW.
struct Trainer {
  std::string dir, path;
  std::unique_ptr<TrainingSession> session;
  Trainer() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "mote-fuzz-optimizer-XXXXXX").string();
    const char* made = mkdtemp(tmpl.data());
    if (!made) std::abort();
    dir = made;
    path = dir + "/model.mote";
    if (!fuzz::optimizer_seed_model().save(path).ok()) std::abort();
    auto model = Model::load(path);
    if (!model.ok()) std::abort();
    auto created = TrainingSession::create(*model, fuzz::optimizer_seed_options());
    if (!created.ok()) std::abort();
    session = std::move(*created);
  }
  ~Trainer() {
    std::remove((path + ".optimizer").c_str());
    std::remove(path.c_str());
    rmdir(dir.c_str());
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Trainer trainer;
  FILE* f = std::fopen((trainer.path + ".optimizer").c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  if (!trainer.session->restore_optimizer(trainer.path).ok()) return 0;
  Tensor x = Tensor::zeros(DType::F32, {4, 3});
  Tensor labels = Tensor::from_vector<int64_t>({4}, {0, 1, 1, 0});
  auto loss = trainer.session->train_step({x}, labels);
  (void)loss;  // NaN from a hostile state is fine; a crash is not
  return 0;
}
