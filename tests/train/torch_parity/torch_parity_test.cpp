// TrainingSession against PyTorch: ten steps of SGD (momentum, L2 weight
// decay) and of AdamW (decoupled decay), with a linear warm-up + cosine
// learning-rate schedule, on a small MLP and a small CNN must give torch's
// per-step losses and final weights within 1e-4 relative.
//
// The reference is torch_reference.py's float64 run from the same f32
// initial weights and batch (why float64: that script's header), written by
// the CTest fixture train_torch_reference into $MOTE_TORCH_PARITY_DIR. The
// hyperparameters here repeat the script's; the per-step learning rates and
// losses it records catch any drift between the two.
//
// Weights are compared per tensor as max |mote - torch| / max |torch|: an
// elementwise relative error would be dominated by the weights that happen
// to pass near zero, whose absolute error is as small as everyone else's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <ostream>
#include <string>

#include "mote/gpu.hpp"
#include "mote/training.hpp"
#include "sdk/tools/common/npy.hpp"
#include "tests/train/torch_parity/parity_models.hpp"

namespace mote::test {
namespace {

constexpr int kSteps = 10;
constexpr double kTolerance = 1e-4;

struct ParityParam {
  const char* model;      // "mlp" / "cnn"
  const char* optimizer;  // "sgd" / "adamw"
  Backend backend;
};

std::string case_name(const ParityParam& p) {
  return std::string(p.model) + "_" + p.optimizer;
}

void PrintTo(const ParityParam& p, std::ostream* os) { *os << case_name(p) << " on " << backend_name(p.backend); }

// torch_reference.py's OPTIMIZERS, WARMUP_STEPS, TOTAL_STEPS, MIN_LR_FRACTION.
TrainingOptions options_for(const ParityParam& p) {
  TrainingOptions o;
  o.loss = LossKind::kSoftmaxCrossEntropy;
  if (std::string(p.optimizer) == "sgd") {
    o.optimizer = {.kind = OptimizerKind::kSgd, .learning_rate = 0.1f, .weight_decay = 1e-3f, .momentum = 0.9f};
  } else {
    o.optimizer = {.kind = OptimizerKind::kAdamW,
                   .learning_rate = 0.01f,
                   .weight_decay = 1e-2f,
                   .beta1 = 0.9f,
                   .beta2 = 0.999f,
                   .epsilon = 1e-8f};
  }
  o.schedule = {.kind = ScheduleKind::kCosine,
                .warmup_steps = 3,
                .total_steps = kSteps,
                .min_lr = 0.1f * o.optimizer.learning_rate};
  o.session.backend = p.backend;
  o.session.threads = 1;
  // These networks are tiny: without this every op would stay on the CPU.
  o.session.min_gpu_island_elements = 0;
  return o;
}

// max |a - b| / max |b|, in double.
double relative_error(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    diff = std::max(diff, std::fabs(a[i] - b[i]));
    scale = std::max(scale, std::fabs(b[i]));
  }
  return scale > 0 ? diff / scale : diff;
}

std::vector<double> read_doubles(const std::string& path) {
  auto t = tools::read_npy(path);
  EXPECT_TRUE(t.ok()) << t.status().to_string();
  return t.ok() ? t->to_doubles() : std::vector<double>{};
}

class TorchParity : public testing::TestWithParam<ParityParam> {};

TEST_P(TorchParity, TenStepsEndWithTorchsWeights) {
  const ParityParam& p = GetParam();
  const char* root = std::getenv("MOTE_TORCH_PARITY_DIR");
  ASSERT_TRUE(root && *root) << "MOTE_TORCH_PARITY_DIR is not set: run this through CTest (the fixture "
                                "train_torch_reference writes the torch reference), or run "
                                "tests/train/torch_parity/torch_reference.py DIR and point it at DIR";
  if (p.backend == Backend::kVulkan) {
    auto gpu = describe_gpu();
    if (!gpu.ok()) {
      if (std::getenv("MOTE_REQUIRE_VULKAN")) FAIL() << "Vulkan required: " << gpu.status().message();
      GTEST_SKIP() << gpu.status().message();
    }
  }
  const std::string dir = std::string(root) + "/" + case_name(p);
  auto c = load_parity_case(dir, p.model);
  ASSERT_TRUE(c.ok()) << c.status().to_string()
                      << " (the fixture train_torch_reference writes these files; did it fail?)";
  const std::vector<double> torch_lr = read_doubles(dir + "/lr.npy");
  const std::vector<double> torch_loss = read_doubles(dir + "/losses.npy");
  ASSERT_EQ(torch_lr.size(), size_t{kSteps});
  ASSERT_EQ(torch_loss.size(), size_t{kSteps});

  auto trainer = TrainingSession::create(c->model, options_for(p));
  ASSERT_TRUE(trainer.ok()) << trainer.status().to_string();
  TrainingSession& t = **trainer;
  ASSERT_EQ(t.trainable_names(), c->params);

  double worst_loss = 0;
  for (int step = 0; step < kSteps; ++step) {
    const double want_lr = torch_lr[static_cast<size_t>(step)];
    // The schedule reaches the graph as an f32 scalar: f32 rounding only.
    EXPECT_NEAR(t.learning_rate(), want_lr, 1e-6 * want_lr) << "learning rate of step " << step;
    auto loss = t.train_step({c->x}, c->labels);
    ASSERT_TRUE(loss.ok()) << "step " << step << ": " << loss.status().to_string();
    const double want = torch_loss[static_cast<size_t>(step)];
    const double err = std::fabs(*loss - want) / std::fabs(want);
    worst_loss = std::max(worst_loss, err);
    EXPECT_LE(err, kTolerance) << "loss of step " << step << ": mote " << *loss << ", torch " << want;
  }

  double worst_weight = 0;
  std::string worst_name;
  for (const std::string& name : c->params) {
    const std::vector<double> want = read_doubles(dir + "/final." + name + ".npy");
    const Tensor* got = t.parameter(name);
    ASSERT_NE(got, nullptr) << name;
    ASSERT_EQ(got->numel(), static_cast<int64_t>(want.size())) << name;
    const double err = relative_error(got->to_doubles(), want);
    if (err >= worst_weight) {
      worst_weight = err;
      worst_name = name;
    }
    EXPECT_LE(err, kTolerance) << name << " after " << kSteps << " steps: max |mote - torch| / max |torch|";
  }

  int on_gpu = 0;
  const std::vector<OpPlacement> placement = t.train_placement();
  for (const OpPlacement& op : placement) on_gpu += op.device == "vulkan";
  if (p.backend == Backend::kVulkan) {
    EXPECT_GT(on_gpu, 0) << "no op of the training step ran on the GPU";
  }
  // The measured errors, for the record (the budget is kTolerance).
  std::cout << case_name(p) << " on " << backend_name(p.backend) << ": worst loss error " << worst_loss
            << ", worst weight error " << worst_weight << " (" << worst_name << "); " << on_gpu << " of "
            << placement.size() << " ops on the GPU\n";
}

std::string param_name(const testing::TestParamInfo<ParityParam>& info) {
  return std::string(backend_name(info.param.backend)) + "_" + case_name(info.param);
}

INSTANTIATE_TEST_SUITE_P(Cpu, TorchParity,
                         testing::Values(ParityParam{"mlp", "sgd", Backend::kCpu},
                                         ParityParam{"mlp", "adamw", Backend::kCpu},
                                         ParityParam{"cnn", "sgd", Backend::kCpu},
                                         ParityParam{"cnn", "adamw", Backend::kCpu}),
                         param_name);

INSTANTIATE_TEST_SUITE_P(Vulkan, TorchParity,
                         testing::Values(ParityParam{"mlp", "sgd", Backend::kVulkan},
                                         ParityParam{"mlp", "adamw", Backend::kVulkan},
                                         ParityParam{"cnn", "sgd", Backend::kVulkan},
                                         ParityParam{"cnn", "adamw", Backend::kVulkan}),
                         param_name);

}  // namespace
}  // namespace mote::test
