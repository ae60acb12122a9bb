// On-device training end to end with a mote::TrainingSession: trains a model
// on real data, prints progress (epoch, loss, test accuracy, samples/s),
// writes the loss curve as CSV and PNG, saves the trained .mote (plus its
// optimizer state) and runs the saved file again with an ordinary Session.
//
// Tasks (README.md has the data preparation and the results):
//   digits-mlp    from scratch, scikit-learn's 8x8 digits, MLP
//   digits-cnn    from scratch, the same digits, small CNN
//   fashion-cnn   from scratch, Fashion-MNIST 28x28, small CNN
//   fashion-head  only the head of a converted model (--model, e.g. the MNIST
//                 CNN of mnist-cntk), its feature layers frozen, on Fashion-MNIST
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "examples/finetune/dataset.hpp"
#include "examples/finetune/models.hpp"
#include "examples/finetune/training_log.hpp"
#include "mote/mote.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Args {
  std::string task = "digits-cnn";
  std::string data = ".";
  std::string model;            // fashion-head: the converted model to fine-tune
  std::string trainable_after;  // fashion-head: where the head starts
  std::string out;
  std::string csv, png;
  std::string backend = "cpu";
  std::string optimizer = "adamw";
  int epochs = 0;  // 0: the task's default
  int64_t batch = 0;
  float lr = 0;
  int threads = 0;
  int64_t limit = 0;  // train on the first N training samples only (quick runs)
  int checkpoint_every = 0;
  int profile_top = 0;
  std::vector<std::string> evaluate;  // --evaluate: models to test, no training
};

// What differs between the tasks: data, how rows are shaped, model, defaults.
struct Task {
  finetune::Dataset train, test;
  std::string model_path;
  int epochs;
  int64_t batch;
  float lr;
};

mote::Result<Task> make_task(const Args& a) {
  Task t;
  if (a.task == "digits-mlp" || a.task == "digits-cnn") {
    MOTE_ASSIGN_OR_RETURN(finetune::Dataset all,
                          finetune::load_dataset(a.data + "/digits_x.npy", a.data + "/digits_y.npy"));
    // prepare_digits.py shuffled once; the first 1500 train, the other 297 test.
    constexpr int64_t kTrain = 1500;
    t.train = all.slice(0, std::min(kTrain, all.size()));
    t.test = all.slice(std::min(kTrain, all.size()), all.size());
    const bool cnn = a.task == "digits-cnn";
    if (cnn) {
      MOTE_RETURN_IF_ERROR(t.train.reshape_rows({1, 8, 8}));
      MOTE_RETURN_IF_ERROR(t.test.reshape_rows({1, 8, 8}));
    }
    t.model_path = a.data + (cnn ? "/digits_cnn.mote" : "/digits_mlp.mote");
    MOTE_RETURN_IF_ERROR(cnn ? finetune::save_digits_cnn(t.model_path) : finetune::save_digits_mlp(t.model_path));
    t.epochs = cnn ? 30 : 15;
    t.batch = 50;
    t.lr = 3e-3f;
  } else if (a.task == "fashion-cnn" || a.task == "fashion-head") {
    MOTE_ASSIGN_OR_RETURN(t.train, finetune::load_dataset(a.data + "/fashion_train_x.npy",
                                                          a.data + "/fashion_train_y.npy"));
    MOTE_ASSIGN_OR_RETURN(t.test, finetune::load_dataset(a.data + "/fashion_test_x.npy",
                                                         a.data + "/fashion_test_y.npy"));
    t.epochs = 5;
    if (a.task == "fashion-cnn") {
      t.model_path = a.data + "/fashion_cnn.mote";
      MOTE_RETURN_IF_ERROR(finetune::save_fashion_cnn(t.model_path));
      t.batch = 64;
      t.lr = 2e-3f;
    } else {
      if (a.model.empty()) return mote::invalid_argument("--task fashion-head needs --model (a converted .mote)");
      t.model_path = a.model;
      // mnist-cntk's CNN reads raw 0..255 pixels; the .npy files hold 0..1.
      t.train.scale(255.0f);
      t.test.scale(255.0f);
      t.batch = 0;  // the model's own batch (see main)
      t.lr = 1e-2f;
    }
  } else {
    return mote::invalid_argument("unknown task '" + a.task +
                                  "' (expected digits-mlp, digits-cnn, fashion-cnn or fashion-head)");
  }
  if (a.limit > 0 && a.limit < t.train.size()) t.train = t.train.slice(0, a.limit);
  return t;
}

// The test set's logits, `chunk` rows per call (the last chunk may be smaller).
mote::Result<double> test_accuracy(const std::function<mote::Result<std::vector<mote::Tensor>>(const mote::Tensor&)>& run,
                                   const finetune::Dataset& test, int64_t chunk) {
  int64_t correct = 0;
  for (int64_t begin = 0; begin < test.size(); begin += chunk) {
    const int64_t end = std::min(begin + chunk, test.size());
    finetune::Dataset part = test.slice(begin, end);
    MOTE_ASSIGN_OR_RETURN(std::vector<mote::Tensor> out, run(part.x));
    correct += static_cast<int64_t>(finetune::accuracy(out[0], part.y) * static_cast<double>(end - begin) + 0.5);
  }
  return static_cast<double>(correct) / static_cast<double>(test.size());
}

// The op types taking most of the last step's time, summed per type and device.
void print_profile(const std::vector<mote::OpTime>& times, int top) {
  std::map<std::string, std::pair<double, int>> by_type;
  double total = 0;
  for (const auto& t : times) {
    // OpTime::op is "Type 'name'"; the type is the first word.
    auto& entry = by_type[t.op.substr(0, t.op.find(' ')) + " (" + t.device + ")"];
    entry.first += t.ms;
    entry.second += 1;
    total += t.ms;
  }
  std::vector<std::pair<std::string, std::pair<double, int>>> sorted(by_type.begin(), by_type.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) { return x.second.first > y.second.first; });
  std::printf("last step: %.2f ms in %zu ops\n", total, times.size());
  for (int i = 0; i < top && i < static_cast<int>(sorted.size()); ++i) {
    std::printf("  %-28s %3d ops %8.3f ms  %5.1f %%\n", sorted[i].first.c_str(), sorted[i].second.second,
                sorted[i].second.first, 100.0 * sorted[i].second.first / total);
  }
}

int fail(const mote::Status& st) {
  std::fprintf(stderr, "mote_example_finetune: %s\n", st.to_string().c_str());
  return 1;
}

// The predicted class of each row of `logits` [rows, classes].
std::vector<int64_t> predictions(const mote::Tensor& logits) {
  const int64_t classes = logits.dim(logits.rank() - 1), rows = logits.numel() / classes;
  std::vector<int64_t> out(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = logits.data<float>() + r * classes;
    out[static_cast<size_t>(r)] = std::max_element(row, row + classes) - row;
  }
  return out;
}

// --evaluate: each model's test accuracy, and its agreement with the first.
int evaluate_models(const Args& a, const finetune::Dataset& test) {
  std::vector<int64_t> first;
  for (const std::string& path : a.evaluate) {
    auto model = mote::Model::load(path);
    if (!model.ok()) return fail(model.status());
    mote::SessionOptions options;
    auto backend = mote::parse_backend(a.backend);
    if (!backend.ok()) return fail(backend.status());
    options.backend = *backend;
    options.threads = a.threads;
    auto session = mote::Session::create(*model, options);
    if (!session.ok()) return fail(session.status());
    const mote::Shape& declared = (*model)->graph().tensors[static_cast<size_t>((*model)->graph().inputs[0])]->shape;
    const int64_t chunk = declared.empty() || declared[0] < 1 ? 500 : declared[0];
    std::vector<int64_t> predicted;
    const auto start = Clock::now();
    for (int64_t begin = 0; begin < test.size(); begin += chunk) {
      finetune::Dataset part = test.slice(begin, std::min(begin + chunk, test.size()));
      auto out = (*session)->run({part.x});
      if (!out.ok()) return fail(out.status());
      for (int64_t p : predictions((*out)[0])) predicted.push_back(p);
    }
    const double seconds = seconds_since(start);
    int64_t correct = 0, agree = 0;
    for (size_t i = 0; i < predicted.size(); ++i) {
      correct += predicted[i] == test.y.data<int64_t>()[i];
      if (!first.empty()) agree += predicted[i] == first[i];
    }
    std::printf("%s: test accuracy %.4f (%lld/%lld) in %.2f s", path.c_str(),
                static_cast<double>(correct) / static_cast<double>(predicted.size()), static_cast<long long>(correct),
                static_cast<long long>(predicted.size()), seconds);
    if (!first.empty()) {
      std::printf("; agrees with %s on %lld/%lld", a.evaluate[0].c_str(), static_cast<long long>(agree),
                  static_cast<long long>(predicted.size()));
    }
    std::printf("\n");
    if (first.empty()) first = std::move(predicted);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  CLI::App app{"Trains a model on the device with mote::TrainingSession (examples/finetune/README.md)."};
  app.add_option("--task", a.task, "digits-mlp, digits-cnn, fashion-cnn or fashion-head")->capture_default_str();
  app.add_option("--data", a.data, "directory of the .npy files the prepare_*.py scripts wrote")->required();
  app.add_option("--model", a.model, "fashion-head: the converted .mote whose head is trained");
  app.add_option("--trainable-after", a.trainable_after,
                 "fashion-head: train only what reads this tensor or comes after it (default: the input of the "
                 "model's last op)");
  app.add_option("--epochs", a.epochs, "epochs (default per task: 15, 30, 5, 5)");
  app.add_option("--batch", a.batch, "batch size (default per task; fashion-head: the model's own)");
  app.add_option("--lr", a.lr, "peak learning rate (default per task)");
  app.add_option("--optimizer", a.optimizer, "adamw or sgd (momentum 0.9)")->capture_default_str();
  app.add_option("--backend", a.backend, "cpu or vulkan (ops without a Vulkan kernel run on the CPU)")
      ->capture_default_str();
  app.add_option("--threads", a.threads, "CPU threads (0 = all)");
  app.add_option("--checkpoint-every", a.checkpoint_every,
                 "gradient checkpointing: recompute the forward pass in segments of N ops (0 = off)");
  app.add_option("--profile", a.profile_top, "after training, print the N op types taking most time in a step");
  app.add_option("--limit", a.limit, "train on the first N training samples only");
  app.add_option("--evaluate", a.evaluate,
                 "no training: the test accuracy of these .mote models, and how often each agrees with the first "
                 "(e.g. a float model and its --quantize int8 version)");
  app.add_option("--out", a.out, "the trained model (default DATA/<task>_trained.mote)");
  app.add_option("--csv", a.csv, "loss curve as CSV (default DATA/<task>_loss.csv)");
  app.add_option("--png", a.png, "loss curve plot (default DATA/<task>_loss.png)");
  CLI11_PARSE(app, argc, argv);
  const std::string prefix = a.data + "/" + a.task;
  if (a.out.empty()) a.out = prefix + "_trained.mote";
  if (a.csv.empty()) a.csv = prefix + "_loss.csv";
  if (a.png.empty()) a.png = prefix + "_loss.png";

  auto task = make_task(a);
  if (!task.ok()) return fail(task.status());
  if (!a.evaluate.empty()) return evaluate_models(a, task->test);
  auto model = mote::Model::load(task->model_path);
  if (!model.ok()) return fail(model.status());
  const int epochs = a.epochs > 0 ? a.epochs : task->epochs;
  int64_t batch = a.batch > 0 ? a.batch : task->batch;
  const mote::Shape& declared = (*model)->graph().tensors[static_cast<size_t>((*model)->graph().inputs[0])]->shape;
  if (batch == 0) batch = declared.empty() || declared[0] < 1 ? 64 : declared[0];
  if (!declared.empty() && declared[0] >= 1 && declared[0] != batch) {
    return fail(mote::invalid_argument(task->model_path + " declares a batch of " + std::to_string(declared[0]) +
                                       ", --batch is " + std::to_string(batch)));
  }
  // Whole batches only: the training step is planned for one batch shape.
  const int64_t steps_per_epoch = task->train.size() / batch;

  mote::TrainingOptions options;
  options.loss = mote::LossKind::kSoftmaxCrossEntropy;
  auto kind = mote::parse_optimizer_kind(a.optimizer);
  if (!kind.ok()) return fail(kind.status());
  options.optimizer.kind = *kind;
  options.optimizer.learning_rate = a.lr > 0 ? a.lr : task->lr;
  options.optimizer.weight_decay = *kind == mote::OptimizerKind::kAdamW ? 1e-4f : 0.0f;
  options.optimizer.momentum = *kind == mote::OptimizerKind::kSgd ? 0.9f : 0.0f;
  options.schedule = {.kind = mote::ScheduleKind::kCosine,
                      .warmup_steps = std::min<int64_t>(100, steps_per_epoch),
                      .total_steps = epochs * steps_per_epoch};
  if (a.task == "fashion-head") {
    options.trainable_after = a.trainable_after;
    if (options.trainable_after.empty()) {
      // The head: the last op's data input (for mnist-cntk, the flattened
      // features its final Gemm reads).
      const auto& last = *(*model)->graph().ops.back();
      options.trainable_after = (*model)->graph().tensors[static_cast<size_t>(last.inputs[0])]->name;
    }
  }
  auto backend = mote::parse_backend(a.backend);
  if (!backend.ok()) return fail(backend.status());
  options.session.backend = *backend;
  options.session.threads = a.threads;
  options.checkpoint_every = a.checkpoint_every;
  options.session.profile = a.profile_top > 0;
  auto trainer = mote::TrainingSession::create(*model, options);
  if (!trainer.ok()) return fail(trainer.status());

  std::string trained;
  for (const auto& name : (*trainer)->trainable_names()) trained += (trained.empty() ? "" : ", ") + name;
  std::printf("task %s: %lld training and %lld test samples, batch %lld, %d epochs, %s, backend %s\n",
              a.task.c_str(), static_cast<long long>(task->train.size()), static_cast<long long>(task->test.size()),
              static_cast<long long>(batch), epochs, a.optimizer.c_str(), a.backend.c_str());
  std::printf("training: %s\n", trained.c_str());

  const int64_t eval_chunk = declared.empty() || declared[0] < 1 ? 500 : declared[0];
  auto evaluate = [&](const mote::Tensor& x) { return (*trainer)->evaluate({x}); };
  // The starting point: chance for a model trained from scratch; for a
  // fine-tune, what the original weights already do on the new data.
  auto initial = test_accuracy(evaluate, task->test, eval_chunk);
  if (!initial.ok()) return fail(initial.status());
  std::printf("before training: test accuracy %.4f\n", *initial);

  finetune::TrainingLog log;
  std::mt19937 rng(7);
  double train_seconds = 0;
  const int64_t report_every = std::max<int64_t>(steps_per_epoch / 5, 1);
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    const std::vector<int64_t> order = finetune::shuffled(task->train.size(), rng);
    double loss_sum = 0;
    const auto epoch_start = Clock::now();
    for (int64_t s = 0; s < steps_per_epoch; ++s) {
      finetune::Dataset b = task->train.gather(order, s * batch, (s + 1) * batch);
      const float lr = (*trainer)->learning_rate();
      auto loss = (*trainer)->train_step({b.x}, b.y);
      if (!loss.ok()) return fail(loss.status());
      log.step((*trainer)->step(), epoch, *loss, lr);
      loss_sum += *loss;
      // A few progress lines per long epoch, none just before its summary.
      if (steps_per_epoch >= 50 && (s + 1) % report_every == 0 && s + 1 + report_every / 2 < steps_per_epoch) {
        std::printf("  epoch %d  step %lld/%lld  loss %.4f  %.0f samples/s\n", epoch, static_cast<long long>(s + 1),
                    static_cast<long long>(steps_per_epoch), loss_sum / static_cast<double>(s + 1),
                    static_cast<double>((s + 1) * batch) / seconds_since(epoch_start));
        std::fflush(stdout);
      }
    }
    const double seconds = seconds_since(epoch_start);
    train_seconds += seconds;
    const auto eval_start = Clock::now();
    auto acc = test_accuracy(evaluate, task->test, eval_chunk);
    if (!acc.ok()) return fail(acc.status());
    log.epoch(epoch, *acc);
    std::printf("epoch %2d/%d  loss %.4f  test accuracy %.4f  %.0f samples/s  (train %.1f s, test %.1f s)\n", epoch,
                epochs, loss_sum / static_cast<double>(std::max<int64_t>(steps_per_epoch, 1)), *acc,
                static_cast<double>(steps_per_epoch * batch) / seconds, seconds, seconds_since(eval_start));
    std::fflush(stdout);
  }
  const mote::PlanStats stats = (*trainer)->train_plan_stats();
  const std::string device_arena =
      stats.device_arena_bytes > 0 ? ", device arena " + std::to_string(stats.device_arena_bytes / 1024) + " KiB" : "";
  std::printf("training: %.0f samples/s over %d epochs; training step plan: %d ops (%d on the GPU, %d on the CPU, "
              "%d folded), intermediates arena %.2f MiB%s\n",
              static_cast<double>(epochs * steps_per_epoch * batch) / train_seconds, epochs, stats.ops_total,
              stats.ops_gpu, stats.ops_cpu, stats.ops_folded, static_cast<double>(stats.arena_bytes) / (1024.0 * 1024.0),
              device_arena.c_str());

  if (a.profile_top > 0) print_profile((*trainer)->train_profile(), a.profile_top);

  if (auto st = log.write_csv(a.csv); !st.ok()) return fail(st);
  if (auto st = log.write_png(a.png); !st.ok()) return fail(st);
  std::printf("wrote %s and %s\n", a.csv.c_str(), a.png.c_str());

  // The trained model is an ordinary .mote: load it and run it with a Session.
  if (auto st = (*trainer)->save(a.out); !st.ok()) return fail(st);
  auto saved = mote::Model::load(a.out);
  if (!saved.ok()) return fail(saved.status());
  mote::SessionOptions inference;
  inference.backend = *backend;
  auto session = mote::Session::create(*saved, inference);
  if (!session.ok()) return fail(session.status());
  auto reloaded = test_accuracy([&](const mote::Tensor& x) { return (*session)->run({x}); }, task->test, eval_chunk);
  if (!reloaded.ok()) return fail(reloaded.status());
  std::printf("saved %s (+ .optimizer); reloaded test accuracy %.4f\n", a.out.c_str(), *reloaded);
  return 0;
}
