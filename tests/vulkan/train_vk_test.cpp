// Training on Vulkan against training on the CPU: the same TrainingSession
// (forward, loss, backward and optimizer update as ordinary ops) run with
// Backend::kVulkan and Backend::kCpu on identical models and batches must
// give the same per-step losses and parameters, for an MLP and a small CNN,
// each loss and both optimizers with a learning-rate schedule. The CPU
// backend is the independent reference here: its kernels are tested against
// the reference kernels, and its training against finite differences and
// host formulas (tests/train). The placement of the training step is
// checked too, so a backward or update op silently falling back to the CPU
// fails the test.

#include <algorithm>
#include <cmath>
#include <map>

#include "mote/graph_builder.hpp"
#include "mote/training.hpp"
#include "tests/support/op_attrs.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

constexpr int64_t kBatch = 8;
constexpr int64_t kClasses = 3;

std::shared_ptr<const Model> load(const GraphBuilder& b, const std::string& name) {
  const std::string path = process_temp_dir().file(name);
  EXPECT_TRUE(b.save(path).ok());
  auto model = Model::load(path);
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  return model.ok() ? *model : nullptr;
}

// x [N, 8] -> Gemm -> Relu -> Gemm -> [N, 3].
std::shared_ptr<const Model> mlp() {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {kBatch, 8});
  int w1 = b.add_constant("fc1.weight", random_tensor(DType::F32, {8, 16}, 1, -0.5, 0.5));
  int b1 = b.add_constant("fc1.bias", random_tensor(DType::F32, {16}, 2, -0.1, 0.1));
  int w2 = b.add_constant("fc2.weight", random_tensor(DType::F32, {16, kClasses}, 3, -0.5, 0.5));
  int b2 = b.add_constant("fc2.bias", random_tensor(DType::F32, {kClasses}, 4, -0.1, 0.1));
  int h = b.add_op(fb::OpType::Gemm, {x, w1, b1}, fb::GemmAttrsT{})[0];
  h = b.add_op(fb::OpType::Relu, {h}, 1, "relu")[0];
  b.mark_output(b.add_op(fb::OpType::Gemm, {h, w2, b2}, fb::GemmAttrsT{})[0], "logits");
  return load(b, "mlp.mote");
}

// x [N, 2, 9, 9] -> Conv 3x3 pad 1 -> Relu -> MaxPool (or AveragePool) 2x2
// -> Conv 3x3 pad 1 -> GlobalAveragePool -> Flatten -> Gemm -> [N, 3].
std::shared_ptr<const Model> cnn(fb::OpType pool_type = fb::OpType::MaxPool) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {kBatch, 2, 9, 9});
  int w1 = b.add_constant("conv1.weight", random_tensor(DType::F32, {4, 2, 3, 3}, 5, -0.5, 0.5));
  int b1 = b.add_constant("conv1.bias", random_tensor(DType::F32, {4}, 6, -0.1, 0.1));
  int w2 = b.add_constant("conv2.weight", random_tensor(DType::F32, {6, 4, 3, 3}, 7, -0.5, 0.5));
  int b2 = b.add_constant("conv2.bias", random_tensor(DType::F32, {6}, 8, -0.1, 0.1));
  int w3 = b.add_constant("fc.weight", random_tensor(DType::F32, {6, kClasses}, 9, -0.5, 0.5));
  int b3 = b.add_constant("fc.bias", random_tensor(DType::F32, {kClasses}, 10, -0.1, 0.1));
  fb::ConvAttrsT conv = conv_attrs({}, {1, 1, 1, 1});
  int h = b.add_op(fb::OpType::Conv, {x, w1, b1}, conv)[0];
  h = b.add_op(fb::OpType::Relu, {h})[0];
  fb::PoolAttrsT pool;
  pool.kernel_shape = {2, 2};
  pool.strides = {2, 2};
  h = b.add_op(pool_type, {h}, pool)[0];
  h = b.add_op(fb::OpType::Conv, {h, w2, b2}, conv)[0];
  h = b.add_op(fb::OpType::GlobalAveragePool, {h})[0];
  h = b.add_op(fb::OpType::Flatten, {h})[0];
  b.mark_output(b.add_op(fb::OpType::Gemm, {h, w3, b3}, fb::GemmAttrsT{})[0], "logits");
  return load(b, std::string("cnn_") + op_type_name(pool_type) + ".mote");
}

// x [N, 4, 3] -> bidirectional GRU (batch first, hidden 5) -> Y_h [N, 2, 5]
// -> Flatten -> Gemm -> [N, 3]. Training unrolls the GRU into per-step ops
// (runtime/train/unroll_recurrent.cpp), which must all run on the GPU.
std::shared_ptr<const Model> gru_net() {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {kBatch, 4, 3});
  int w = b.add_constant("gru.W", random_tensor(DType::F32, {2, 15, 3}, 11, -0.5, 0.5));
  int r = b.add_constant("gru.R", random_tensor(DType::F32, {2, 15, 5}, 12, -0.5, 0.5));
  int bias = b.add_constant("gru.B", random_tensor(DType::F32, {2, 30}, 13, -0.1, 0.1));
  fb::RecurrentAttrsT a;
  a.hidden_size = 5;
  a.layout = 1;
  a.direction = fb::RnnDirection::Bidirectional;
  int h = b.add_op(fb::OpType::GRU, {x, w, r, bias}, a, 2)[1];
  h = b.add_op(fb::OpType::Flatten, {h})[0];
  int w2 = b.add_constant("fc.weight", random_tensor(DType::F32, {10, kClasses}, 14, -0.5, 0.5));
  int b2 = b.add_constant("fc.bias", random_tensor(DType::F32, {kClasses}, 15, -0.1, 0.1));
  b.mark_output(b.add_op(fb::OpType::Gemm, {h, w2, b2}, fb::GemmAttrsT{})[0], "logits");
  return load(b, "gru.mote");
}

struct Batch {
  Tensor x, labels;
};

// One batch per step, the labels as each loss wants them.
std::vector<Batch> batches(const Shape& x_shape, LossKind loss, int steps, DType class_dtype = DType::I64) {
  std::vector<Batch> out;
  for (int s = 0; s < steps; ++s) {
    const uint32_t seed = 100 + 10 * static_cast<uint32_t>(s);
    Batch b{random_tensor(DType::F32, x_shape, seed), {}};
    switch (loss) {
      case LossKind::kSoftmaxCrossEntropy:  // rounded to 0 .. kClasses - 1
        b.labels = random_tensor(class_dtype, {kBatch}, seed + 1, 0, kClasses - 1);
        break;
      case LossKind::kMse: b.labels = random_tensor(DType::F32, {kBatch, kClasses}, seed + 1); break;
      case LossKind::kBceWithLogits: b.labels = random_tensor(DType::F32, {kBatch, kClasses}, seed + 1, 0, 1); break;
    }
    out.push_back(std::move(b));
  }
  return out;
}

struct Trained {
  std::vector<float> losses;
  std::map<std::string, std::vector<double>> params;
  std::vector<OpPlacement> placement;
};

std::map<std::string, std::vector<double>> parameters(const TrainingSession& t) {
  std::map<std::string, std::vector<double>> out;
  for (const std::string& name : t.trainable_names()) out[name] = t.parameter(name)->to_doubles();
  return out;
}

Result<Trained> train(std::shared_ptr<const Model> model, TrainingOptions o, Backend backend,
                      const std::vector<Batch>& data) {
  o.session.backend = backend;
  o.session.threads = 1;
  o.session.gpu_precision = GpuPrecision::kF32;
  // The test models are tiny: without this, the island rule would send them
  // back to the CPU, and the GPU path would go untested.
  o.session.min_gpu_island_elements = 0;
  MOTE_ASSIGN_OR_RETURN(auto t, TrainingSession::create(std::move(model), o));
  Trained out;
  for (const Batch& b : data) {
    MOTE_ASSIGN_OR_RETURN(float loss, t->train_step({b.x}, b.labels));
    out.losses.push_back(loss);
  }
  out.params = parameters(*t);
  out.placement = t->train_placement();
  return out;
}

// Every op of the training step ran on the GPU (or was folded at prepare).
void expect_all_on_gpu(const std::vector<OpPlacement>& placement, const std::string& what) {
  ASSERT_FALSE(placement.empty()) << what;
  std::string on_cpu;
  for (const OpPlacement& p : placement) {
    if (p.device != "vulkan" && p.device != "folded") on_cpu += "\n  " + p.op + " on " + p.device + ": " + p.reason;
  }
  EXPECT_TRUE(on_cpu.empty()) << what << ": ops off the GPU:" << on_cpu;
}

// The training step holds `op_type` (so expect_all_on_gpu covered it).
void expect_has_op(const std::vector<OpPlacement>& placement, const std::string& op_type, const std::string& what) {
  bool found = std::any_of(placement.begin(), placement.end(),
                           [&](const OpPlacement& p) { return p.op.rfind(op_type + " ", 0) == 0; });
  EXPECT_TRUE(found) << what << ": no " << op_type << " in the training step";
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// Parameters within rtol of the largest magnitude of each parameter tensor.
void expect_params_near(const std::map<std::string, std::vector<double>>& actual,
                        const std::map<std::string, std::vector<double>>& expected, double rtol,
                        const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (const auto& [name, want] : expected) {
    const std::vector<double>& got = actual.at(name);
    ASSERT_EQ(got.size(), want.size()) << what << " " << name;
    const double tol = rtol * std::max(max_abs(want), 1e-6);
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_NEAR(got[i], want[i], tol) << what << ": " << name << "[" << i << "]";
    }
  }
}

struct Setup {
  const char* name;
  OptimizerOptions optimizer;
  ScheduleOptions schedule;
};

std::vector<Setup> optimizer_setups() {
  return {
      {"SGD momentum + weight decay, warm-up + step schedule",
       {.kind = OptimizerKind::kSgd, .learning_rate = 0.1f, .weight_decay = 1e-3f, .momentum = 0.9f},
       {.kind = ScheduleKind::kStep, .warmup_steps = 2, .step_size = 2, .gamma = 0.5f}},
      {"AdamW, warm-up + cosine schedule",
       {.kind = OptimizerKind::kAdamW, .learning_rate = 0.01f, .weight_decay = 0.01f},
       {.kind = ScheduleKind::kCosine, .warmup_steps = 1, .total_steps = 5, .min_lr = 1e-3f}},
  };
}

const char* loss_name(LossKind loss) {
  switch (loss) {
    case LossKind::kSoftmaxCrossEntropy: return "softmax cross-entropy";
    case LossKind::kMse: return "MSE";
    case LossKind::kBceWithLogits: return "BCE with logits";
  }
  return "?";
}

constexpr int kSteps = 5;
constexpr double kRtol = 1e-4;

// `backward_ops`: op types the training step must contain (and so ran on the GPU).
void expect_vulkan_trains_like_cpu(std::shared_ptr<const Model> model, const Shape& x_shape,
                                   const std::vector<std::string>& backward_ops) {
  ASSERT_TRUE(model);
  for (LossKind loss : {LossKind::kSoftmaxCrossEntropy, LossKind::kMse, LossKind::kBceWithLogits}) {
    for (const Setup& setup : optimizer_setups()) {
      const std::string what = std::string(loss_name(loss)) + ", " + setup.name;
      SCOPED_TRACE(what);
      TrainingOptions o;
      o.loss = loss;
      o.optimizer = setup.optimizer;
      o.schedule = setup.schedule;
      const std::vector<Batch> data = batches(x_shape, loss, kSteps);
      auto cpu = train(model, o, Backend::kCpu, data);
      ASSERT_TRUE(cpu.ok()) << cpu.status().to_string();
      auto gpu = train(model, o, Backend::kVulkan, data);
      ASSERT_TRUE(gpu.ok()) << gpu.status().to_string();
      expect_all_on_gpu(gpu->placement, what);
      for (const std::string& op : backward_ops) expect_has_op(gpu->placement, op, what);
      ASSERT_EQ(gpu->losses.size(), cpu->losses.size());
      for (size_t s = 0; s < cpu->losses.size(); ++s) {
        EXPECT_NEAR(gpu->losses[s], cpu->losses[s], kRtol * std::max(1.0f, std::abs(cpu->losses[s])))
            << what << ": step " << s;
      }
      expect_params_near(gpu->params, cpu->params, kRtol, what);
    }
  }
}

TEST(TrainVk, MlpTrainsLikeTheCpu) {
  MOTE_REQUIRE_VULKAN();
  expect_vulkan_trains_like_cpu(mlp(), {kBatch, 8}, {"Gemm", "Where", "ReduceSum"});
}

TEST(TrainVk, CnnTrainsLikeTheCpu) {
  MOTE_REQUIRE_VULKAN();
  expect_vulkan_trains_like_cpu(cnn(), {kBatch, 2, 9, 9}, {"ConvGradWeight", "MaxPoolGrad", "ConvTranspose"});
}

TEST(TrainVk, RecurrentNetTrainsLikeTheCpu) {
  MOTE_REQUIRE_VULKAN();
  expect_vulkan_trains_like_cpu(gru_net(), {kBatch, 4, 3}, {"Sigmoid", "Tanh", "Slice", "Pad"});
}

// i32 class indices take their own path through the loss (an i32 class
// range to compare against) and must run on the GPU as well.
TEST(TrainVk, Int32LabelsTrainLikeTheCpu) {
  MOTE_REQUIRE_VULKAN();
  TrainingOptions o;
  o.optimizer = optimizer_setups()[0].optimizer;
  const std::vector<Batch> data = batches({kBatch, 8}, LossKind::kSoftmaxCrossEntropy, 3, DType::I32);
  auto cpu = train(mlp(), o, Backend::kCpu, data);
  ASSERT_TRUE(cpu.ok()) << cpu.status().to_string();
  auto gpu = train(mlp(), o, Backend::kVulkan, data);
  ASSERT_TRUE(gpu.ok()) << gpu.status().to_string();
  expect_all_on_gpu(gpu->placement, "i32 labels");
  for (size_t s = 0; s < cpu->losses.size(); ++s) EXPECT_NEAR(gpu->losses[s], cpu->losses[s], kRtol);
  expect_params_near(gpu->params, cpu->params, kRtol, "i32 labels");
}

// The gradients themselves: one plain SGD step with learning rate 1 leaves
// p - dL/dp, so (before - after) is the gradient of each parameter.
TEST(TrainVk, GradientsMatchTheCpu) {
  MOTE_REQUIRE_VULKAN();
  struct Net {
    const char* name;
    std::shared_ptr<const Model> model;
    Shape x;
    const char* backward_op;  // one the step must hold
  };
  const Net nets[] = {
      {"MLP", mlp(), {kBatch, 8}, "Gemm"},
      {"CNN", cnn(), {kBatch, 2, 9, 9}, "MaxPoolGrad"},
      {"CNN with AveragePool", cnn(fb::OpType::AveragePool), {kBatch, 2, 9, 9}, "AveragePoolGrad"},
  };
  for (const Net& net : nets) {
    ASSERT_TRUE(net.model);
    for (LossKind loss : {LossKind::kSoftmaxCrossEntropy, LossKind::kMse, LossKind::kBceWithLogits}) {
      const std::string what = std::string(net.name) + ", " + loss_name(loss);
      TrainingOptions o;
      o.loss = loss;
      o.optimizer = {.kind = OptimizerKind::kSgd, .learning_rate = 1.0f};
      const std::vector<Batch> data = batches(net.x, loss, 1);
      auto before = TrainingSession::create(net.model, o);
      ASSERT_TRUE(before.ok()) << before.status().to_string();
      const auto initial = parameters(**before);
      auto cpu = train(net.model, o, Backend::kCpu, data);
      ASSERT_TRUE(cpu.ok()) << cpu.status().to_string();
      auto gpu = train(net.model, o, Backend::kVulkan, data);
      ASSERT_TRUE(gpu.ok()) << gpu.status().to_string();
      expect_all_on_gpu(gpu->placement, what);
      expect_has_op(gpu->placement, net.backward_op, what);
      auto gradients = [&](const Trained& t) {
        std::map<std::string, std::vector<double>> g;
        for (const auto& [name, p] : t.params) {
          for (size_t i = 0; i < p.size(); ++i) g[name].push_back(initial.at(name)[i] - p[i]);
        }
        return g;
      };
      const auto cpu_grads = gradients(*cpu);
      // A gradient that is zero everywhere would make the check vacuous.
      for (const auto& [name, g] : cpu_grads) EXPECT_GT(max_abs(g), 0.0) << what << ": " << name;
      expect_params_near(gradients(*gpu), cpu_grads, kRtol, what + " gradients");
    }
  }
}

}  // namespace
}  // namespace mote::test
