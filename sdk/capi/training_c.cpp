// C API: training (mote_trainer), a thin layer over mote::TrainingSession.
#include <cstddef>

#include "sdk/capi/capi_internal.hpp"

using namespace mote::capi;  // NOLINT: this file only defines the C entry points

namespace {

// The size of the first version of mote_training_options (see
// mote_session_options: later fields are read only when struct_size has them).
constexpr size_t kOptionsV1Size = offsetof(mote_training_options, backend) + sizeof(const char*);

mote::Result<mote::TrainingOptions> convert_options(const mote_training_options* o) {
  mote::TrainingOptions converted;
  if (o == nullptr) return converted;
  if (o->struct_size < kOptionsV1Size) {
    return mote::invalid_argument("options->struct_size is " + std::to_string(o->struct_size) +
                                  "; call mote_training_options_init first");
  }
  if (o->loss != nullptr) {
    MOTE_ASSIGN_OR_RETURN(converted.loss, mote::parse_loss_kind(o->loss));
  }
  if (o->output != nullptr) converted.output = o->output;
  if (o->trainable_regex != nullptr) converted.trainable_regex = o->trainable_regex;
  if (o->trainable_after != nullptr) converted.trainable_after = o->trainable_after;
  mote::OptimizerOptions& opt = converted.optimizer;
  if (o->optimizer != nullptr) {
    MOTE_ASSIGN_OR_RETURN(opt.kind, mote::parse_optimizer_kind(o->optimizer));
  }
  opt.learning_rate = o->learning_rate;
  opt.weight_decay = o->weight_decay;
  opt.momentum = o->momentum;
  opt.beta1 = o->beta1;
  opt.beta2 = o->beta2;
  opt.epsilon = o->epsilon;
  mote::ScheduleOptions& schedule = converted.schedule;
  if (o->schedule != nullptr) {
    MOTE_ASSIGN_OR_RETURN(schedule.kind, mote::parse_schedule_kind(o->schedule));
  }
  schedule.warmup_steps = o->warmup_steps;
  schedule.step_size = o->step_size;
  schedule.gamma = o->gamma;
  schedule.total_steps = o->total_steps;
  schedule.min_lr = o->min_lr;
  converted.session.threads = o->threads;
  if (o->backend != nullptr) {
    MOTE_ASSIGN_OR_RETURN(converted.session.backend, mote::parse_backend(o->backend));
  }
  return converted;
}

}  // namespace

extern "C" {

mote_status mote_training_options_init(mote_training_options* options) {
  const char* fn = __func__;  // inside the lambda __func__ would be "operator()"
  return guarded(fn, [&] {
    if (options == nullptr) return null_argument(fn, "options");
    // The C++ defaults, so the two APIs cannot drift apart.
    const mote::TrainingOptions d;
    *options = mote_training_options{};
    options->struct_size = sizeof(mote_training_options);
    options->loss = "softmax_cross_entropy";
    options->optimizer = d.optimizer.kind == mote::OptimizerKind::kSgd ? "sgd" : "adamw";
    options->learning_rate = d.optimizer.learning_rate;
    options->weight_decay = d.optimizer.weight_decay;
    options->momentum = d.optimizer.momentum;
    options->beta1 = d.optimizer.beta1;
    options->beta2 = d.optimizer.beta2;
    options->epsilon = d.optimizer.epsilon;
    options->schedule = "constant";
    options->warmup_steps = d.schedule.warmup_steps;
    options->step_size = d.schedule.step_size;
    options->gamma = d.schedule.gamma;
    options->total_steps = d.schedule.total_steps;
    options->min_lr = d.schedule.min_lr;
    options->threads = d.session.threads;
    options->backend = "cpu";
    return MOTE_OK;
  });
}

mote_status mote_trainer_create(const mote_model* model, const mote_training_options* options,
                                mote_trainer** out_trainer) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (model == nullptr) return null_argument(fn, "model");
    if (out_trainer == nullptr) return null_argument(fn, "out_trainer");
    auto converted = convert_options(options);
    if (!converted.ok()) return fail(fn, converted.status());
    auto trainer = mote::TrainingSession::create(model->model, *converted);
    if (!trainer.ok()) return fail(fn, trainer.status());
    auto handle = std::make_unique<mote_trainer>();
    handle->trainer = std::move(trainer).value();
    handle->num_inputs = model->inputs.size();
    handle->num_outputs = model->outputs.size();
    *out_trainer = handle.release();
    return MOTE_OK;
  });
}

void mote_trainer_release(mote_trainer* trainer) { delete trainer; }

mote_status mote_trainer_train_step(mote_trainer* trainer, mote_tensor* const* inputs, size_t num_inputs,
                                    const mote_tensor* labels, float* out_loss) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (trainer == nullptr) return null_argument(fn, "trainer");
    if (labels == nullptr) return null_argument(fn, "labels");
    auto tensors = to_tensors(inputs, num_inputs);
    if (!tensors.ok()) return fail(fn, tensors.status());
    auto loss = trainer->trainer->train_step(*tensors, labels->tensor);
    if (!loss.ok()) return fail(fn, loss.status());
    if (out_loss != nullptr) *out_loss = *loss;
    return MOTE_OK;
  });
}

mote_status mote_trainer_evaluate(mote_trainer* trainer, mote_tensor* const* inputs, size_t num_inputs,
                                  mote_tensor** outputs, size_t num_outputs) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (trainer == nullptr) return null_argument(fn, "trainer");
    if (outputs == nullptr && num_outputs > 0) return null_argument(fn, "outputs");
    if (num_outputs != trainer->num_outputs) {
      return fail(fn, MOTE_INVALID_ARGUMENT,
                  "num_outputs is " + std::to_string(num_outputs) + ", the model has " +
                      std::to_string(trainer->num_outputs) + " outputs");
    }
    auto tensors = to_tensors(inputs, num_inputs);
    if (!tensors.ok()) return fail(fn, tensors.status());
    auto result = trainer->trainer->evaluate(*tensors);
    if (!result.ok()) return fail(fn, result.status());
    return publish_outputs(fn, std::move(result).value(), outputs, num_outputs);
  });
}

mote_status mote_trainer_save(const mote_trainer* trainer, const char* path) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (trainer == nullptr) return null_argument(fn, "trainer");
    if (path == nullptr) return null_argument(fn, "path");
    mote::Status status = trainer->trainer->save(path);
    return status.ok() ? MOTE_OK : fail(fn, status);
  });
}

mote_status mote_trainer_restore_optimizer(mote_trainer* trainer, const char* path) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (trainer == nullptr) return null_argument(fn, "trainer");
    if (path == nullptr) return null_argument(fn, "path");
    mote::Status status = trainer->trainer->restore_optimizer(path);
    return status.ok() ? MOTE_OK : fail(fn, status);
  });
}

mote_status mote_trainer_step_count(const mote_trainer* trainer, int64_t* out_steps) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (trainer == nullptr) return null_argument(fn, "trainer");
    if (out_steps == nullptr) return null_argument(fn, "out_steps");
    *out_steps = trainer->trainer->step();
    return MOTE_OK;
  });
}

}  // extern "C"
