// On-device training end to end: an MLP (64 -> 64 -> 10) learns scikit-learn's
// 8x8 digits with a TrainingSession, then the trained model is saved and run
// again as an ordinary model.
//
//   /usr/bin/python3 examples/finetune/prepare_digits.py /tmp/digits
//   mote_example_finetune /tmp/digits [epochs] [out.mote]
//
// The first 1500 (pre-shuffled) samples train, the other 297 test.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "mote/mote.hpp"
#include "sdk/tools/common/npy.hpp"

namespace {

constexpr int64_t kTrain = 1500;
constexpr int64_t kBatch = 50;  // divides kTrain: one training graph for all batches

mote::Tensor he_init(mote::Shape shape, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, std::sqrt(2.0f / static_cast<float>(shape[0])));
  mote::Tensor t = mote::Tensor::zeros(mote::DType::F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = normal(rng);
  return t;
}

// x [N, 64] -> Gemm + Relu -> Gemm -> logits [N, 10], random weights.
mote::Status build_mlp(const std::string& path) {
  std::mt19937 rng(1);
  mote::GraphBuilder b;
  int x = b.add_input("pixels", mote::DType::F32, {-1, 64});
  int w1 = b.add_constant("fc1.weight", he_init({64, 64}, rng));
  int b1 = b.add_constant("fc1.bias", mote::Tensor::zeros(mote::DType::F32, {64}));
  int w2 = b.add_constant("fc2.weight", he_init({64, 10}, rng));
  int b2 = b.add_constant("fc2.bias", mote::Tensor::zeros(mote::DType::F32, {10}));
  int h = b.add_op(mote::fb::OpType::Gemm, {x, w1, b1}, mote::fb::GemmAttrsT{})[0];
  h = b.add_op(mote::fb::OpType::Relu, {h})[0];
  b.mark_output(b.add_op(mote::fb::OpType::Gemm, {h, w2, b2}, mote::fb::GemmAttrsT{})[0], "logits");
  b.set_producer("mote finetune example");
  return b.save(path);
}

// Rows [begin, end) of a 2-D or 1-D tensor, copied.
mote::Tensor rows(const mote::Tensor& t, int64_t begin, int64_t end) {
  mote::Shape shape = t.shape();
  const int64_t row_bytes = static_cast<int64_t>(t.bytes()) / shape[0];
  shape[0] = end - begin;
  mote::Tensor out = mote::Tensor::zeros(t.dtype(), shape);
  std::memcpy(out.raw(), static_cast<const char*>(t.raw()) + begin * row_bytes, static_cast<size_t>((end - begin) * row_bytes));
  return out;
}

double accuracy(const mote::Tensor& logits, const mote::Tensor& labels) {
  int64_t correct = 0;
  const int64_t n = logits.dim(0), classes = logits.dim(1);
  for (int64_t i = 0; i < n; ++i) {
    const float* row = logits.data<float>() + i * classes;
    int64_t best = 0;
    for (int64_t k = 1; k < classes; ++k) best = row[k] > row[best] ? k : best;
    correct += best == labels.data<int64_t>()[i];
  }
  return static_cast<double>(correct) / static_cast<double>(n);
}

int fail(const mote::Status& st) {
  std::fprintf(stderr, "mote_example_finetune: %s\n", st.to_string().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DATA_DIR [epochs] [out.mote]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const int epochs = argc > 2 ? std::atoi(argv[2]) : 20;
  const std::string out_path = argc > 3 ? argv[3] : dir + "/digits_mlp_trained.mote";
  auto x = mote::tools::read_npy(dir + "/digits_x.npy");
  auto y = mote::tools::read_npy(dir + "/digits_y.npy");
  if (!x.ok()) return fail(x.status());
  if (!y.ok()) return fail(y.status());
  const int64_t total = x->dim(0);
  mote::Tensor test_x = rows(*x, kTrain, total), test_y = rows(*y, kTrain, total);

  const std::string initial = dir + "/digits_mlp.mote";
  if (auto st = build_mlp(initial); !st.ok()) return fail(st);
  auto model = mote::Model::load(initial);
  if (!model.ok()) return fail(model.status());

  mote::TrainingOptions options;
  options.loss = mote::LossKind::kSoftmaxCrossEntropy;
  options.optimizer = {.kind = mote::OptimizerKind::kAdamW, .learning_rate = 3e-3f, .weight_decay = 1e-4f};
  const int64_t steps = epochs * (kTrain / kBatch);
  options.schedule = {.kind = mote::ScheduleKind::kCosine, .warmup_steps = 30, .total_steps = steps};
  auto trainer = mote::TrainingSession::create(*model, options);
  if (!trainer.ok()) return fail(trainer.status());

  for (int epoch = 0; epoch < epochs; ++epoch) {
    double loss_sum = 0;
    for (int64_t b = 0; b < kTrain; b += kBatch) {
      auto loss = (*trainer)->train_step({rows(*x, b, b + kBatch)}, rows(*y, b, b + kBatch));
      if (!loss.ok()) return fail(loss.status());
      loss_sum += *loss;
    }
    auto logits = (*trainer)->evaluate({test_x});
    if (!logits.ok()) return fail(logits.status());
    std::printf("epoch %2d  lr %.5f  train loss %.4f  test accuracy %.3f\n", epoch + 1, (*trainer)->learning_rate(),
                loss_sum / static_cast<double>(kTrain / kBatch), accuracy((*logits)[0], test_y));
  }

  // The trained model is an ordinary .mote: load it and run it with a Session.
  if (auto st = (*trainer)->save(out_path); !st.ok()) return fail(st);
  auto trained = mote::Model::load(out_path);
  if (!trained.ok()) return fail(trained.status());
  auto session = mote::Session::create(*trained);
  if (!session.ok()) return fail(session.status());
  auto logits = (*session)->run({test_x});
  if (!logits.ok()) return fail(logits.status());
  std::printf("saved %s (+ .optimizer); reloaded test accuracy %.3f\n", out_path.c_str(),
              accuracy((*logits)[0], test_y));
  return 0;
}
