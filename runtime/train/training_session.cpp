#include <cmath>
#include <cstring>
#include <map>

#include "mote/graph_builder.hpp"
#include "mote/training.hpp"
#include "runtime/core/one_caller.hpp"
#include "runtime/train/graph_copy.hpp"
#include "runtime/train/optimizers.hpp"
#include "runtime/train/trainable.hpp"
#include "runtime/train/training_model.hpp"

namespace mote {

namespace {

constexpr const char* kStepKey = "mote.train.step";
constexpr const char* kOptimizerKey = "mote.train.optimizer";

const char* optimizer_name(const OptimizerOptions& o) {
  if (o.kind == OptimizerKind::kAdamW) return "adamw";
  return o.momentum != 0.0f ? "sgd-momentum" : "sgd";
}

// A built model with everything it borrows: the serialized bytes the Model
// uses in place (64-byte aligned, as Model::from_buffer requires: a u8
// Tensor's storage is), and the Session running it (destroyed first).
struct Built {
  std::vector<Shape> shapes;
  Tensor bytes;
  std::shared_ptr<const Model> model;
  std::unique_ptr<Session> session;
};

Status make_session(Built& built, std::vector<uint8_t> bytes, const SessionOptions& options, const char* what) {
  built.session.reset();
  built.model.reset();
  built.bytes = Tensor::zeros(DType::U8, {static_cast<int64_t>(bytes.size())});
  std::memcpy(built.bytes.raw(), bytes.data(), bytes.size());
  auto model = Model::from_buffer(built.bytes.raw(), bytes.size(), what);
  if (!model.ok()) return model.status().with_context(std::string("building the ") + what);
  built.model = *model;
  MOTE_ASSIGN_OR_RETURN(built.session, Session::create(built.model, options));
  return {};
}

std::vector<Shape> shapes_of(const std::vector<Tensor>& tensors) {
  std::vector<Shape> shapes;
  for (const auto& t : tensors) shapes.push_back(t.shape());
  return shapes;
}

}  // namespace

struct TrainingSession::Impl {
  std::shared_ptr<const Model> model;
  TrainingOptions options;
  int output = 0;
  std::vector<int> params;
  std::vector<int> checkpoints;  // tensor indices (TrainingOptions::checkpoints)
  std::vector<std::string> names;
  std::vector<Tensor> values;               // current parameters
  std::vector<std::vector<Tensor>> states;  // per parameter, optimizer_state_names order
  // BatchNormalization's running statistics: state the forward pass updates.
  std::vector<int> stats;
  std::vector<Tensor> stat_values;
  int64_t step = 0;
  Built train;
  Shape label_shape;
  DType label_dtype = DType::F32;
  Built eval;
  OneCaller one_caller;

  Status check_inputs(const std::vector<Tensor>& inputs) const {
    if (inputs.size() != model->graph().inputs.size()) {
      return invalid_argument("expected " + std::to_string(model->graph().inputs.size()) + " inputs, got " +
                              std::to_string(inputs.size()));
    }
    return {};
  }
};

TrainingSession::TrainingSession() : impl_(std::make_unique<Impl>()) {}
TrainingSession::~TrainingSession() = default;

Result<std::unique_ptr<TrainingSession>> TrainingSession::create(std::shared_ptr<const Model> model,
                                                                 TrainingOptions options) {
  if (!model) return invalid_argument("TrainingSession::create: null model");
  std::unique_ptr<TrainingSession> s(new TrainingSession());
  Impl& m = *s->impl_;
  m.model = model;
  m.options = options;
  if (!options.output.empty()) {
    m.output = -1;
    const auto& outs = model->graph().outputs;
    for (size_t i = 0; i < outs.size(); ++i) {
      if (model->graph().tensors[static_cast<size_t>(outs[i])]->name == options.output) m.output = static_cast<int>(i);
    }
    if (m.output < 0) return not_found("the model has no output named '" + options.output + "'");
  }
  MOTE_ASSIGN_OR_RETURN(m.params, select_trainable(*model, options));
  for (const std::string& name : options.checkpoints) {
    const int t = model->find_tensor(name);
    if (t < 0) return not_found("checkpoints: " + model->source() + " has no tensor '" + name + "'");
    m.checkpoints.push_back(t);
  }
  MOTE_ASSIGN_OR_RETURN(m.stats, select_running_stats(*model));
  for (int st : m.stats) {
    const fb::TensorT& t = *model->graph().tensors[static_cast<size_t>(st)];
    m.stat_values.push_back(Tensor::borrow(t.dtype, t.shape, model->tensor_data(st)).clone());
  }
  const size_t state_count = optimizer_state_names(options.optimizer).size();
  for (int p : m.params) {
    const fb::TensorT& t = *model->graph().tensors[static_cast<size_t>(p)];
    m.names.push_back(t.name);
    m.values.push_back(Tensor::borrow(t.dtype, t.shape, model->tensor_data(p)).clone());
    m.states.emplace_back();
    for (size_t i = 0; i < state_count; ++i) m.states.back().push_back(Tensor::zeros(DType::F32, t.shape));
  }
  return s;
}

Result<float> TrainingSession::train_step(const std::vector<Tensor>& inputs, const Tensor& labels) {
  Impl& m = *impl_;
  OneCaller::Scope scope(m.one_caller);
  if (!scope.acquired()) return OneCaller::busy_error("TrainingSession::train_step");
  MOTE_RETURN_IF_ERROR(m.check_inputs(inputs));
  const OptimizerOptions& opt = m.options.optimizer;
  std::vector<Shape> shapes = shapes_of(inputs);
  if (!m.train.session || shapes != m.train.shapes || labels.shape() != m.label_shape ||
      labels.dtype() != m.label_dtype) {
    // The training graph is built for concrete shapes: a new batch shape (a
    // last partial batch) gets a graph of its own.
    TrainingModelSpec spec{shapes,         m.params,       m.stats, m.output,      labels.dtype(),
                           labels.shape(), m.options.loss, opt,     m.checkpoints, m.options.checkpoint_every};
    MOTE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, build_training_model(*m.model, spec));
    MOTE_RETURN_IF_ERROR(make_session(m.train, std::move(bytes), m.options.session, "training model"));
    m.train.shapes = shapes;
    m.label_shape = labels.shape();
    m.label_dtype = labels.dtype();
  }

  std::vector<Tensor> feed = inputs;
  for (const auto& v : m.values) feed.push_back(v);
  for (const auto& v : m.stat_values) feed.push_back(v);
  // Dropout's mask is drawn from the step: a resumed run redraws the same masks.
  if (has_dropout(*m.model)) feed.push_back(Tensor::from_vector<int64_t>({}, {m.step}));
  feed.push_back(labels);
  feed.push_back(Tensor::from_vector<float>({}, {learning_rate()}));
  if (opt.kind == OptimizerKind::kAdamW) {
    const double t = static_cast<double>(m.step + 1);
    feed.push_back(Tensor::from_vector<float>({}, {static_cast<float>(1.0 / (1.0 - std::pow(double{opt.beta1}, t)))}));
    feed.push_back(Tensor::from_vector<float>({}, {static_cast<float>(1.0 / (1.0 - std::pow(double{opt.beta2}, t)))}));
  }
  for (const auto& per_param : m.states) {
    for (const auto& st : per_param) feed.push_back(st);
  }
  MOTE_ASSIGN_OR_RETURN(std::vector<Tensor> out, m.train.session->run(feed));
  const float loss = out[0].data<float>()[0];
  size_t k = 1;
  for (auto& v : m.values) v = std::move(out[k++]);
  for (auto& per_param : m.states) {
    for (auto& st : per_param) st = std::move(out[k++]);
  }
  for (auto& v : m.stat_values) v = std::move(out[k++]);
  ++m.step;
  return loss;
}

Result<std::vector<Tensor>> TrainingSession::evaluate(const std::vector<Tensor>& inputs) {
  Impl& m = *impl_;
  OneCaller::Scope scope(m.one_caller);
  if (!scope.acquired()) return OneCaller::busy_error("TrainingSession::evaluate");
  MOTE_RETURN_IF_ERROR(m.check_inputs(inputs));
  std::vector<Shape> shapes = shapes_of(inputs);
  if (!m.eval.session || shapes != m.eval.shapes) {
    MOTE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, build_eval_model(*m.model, shapes, m.params, m.stats));
    MOTE_RETURN_IF_ERROR(make_session(m.eval, std::move(bytes), m.options.session, "evaluation model"));
    m.eval.shapes = shapes;
  }
  std::vector<Tensor> feed = inputs;
  for (const auto& v : m.values) feed.push_back(v);
  for (const auto& v : m.stat_values) feed.push_back(v);
  return m.eval.session->run(feed);
}

Status TrainingSession::save(const std::string& path) const {
  const Impl& m = *impl_;
  OneCaller::Scope scope(m.one_caller);
  if (!scope.acquired()) return OneCaller::busy_error("TrainingSession::save");
  std::map<int, Tensor> trained;
  for (size_t i = 0; i < m.params.size(); ++i) trained[m.params[i]] = m.values[i];
  for (size_t i = 0; i < m.stats.size(); ++i) trained[m.stats[i]] = m.stat_values[i];
  MOTE_ASSIGN_OR_RETURN(GraphBuilder model, copy_with_constants(*m.model, trained));
  MOTE_RETURN_IF_ERROR(model.save(path));

  // The optimizer state: one named constant per state tensor, each a graph
  // output so the file is a valid model, with the step count in metadata.
  GraphBuilder state;
  const std::vector<std::string> state_names = optimizer_state_names(m.options.optimizer);
  for (size_t i = 0; i < m.params.size(); ++i) {
    for (size_t j = 0; j < state_names.size(); ++j) {
      state.mark_output(state.add_constant(m.names[i] + "/" + state_names[j], m.states[i][j]));
    }
  }
  state.set_metadata(kStepKey, std::to_string(m.step));
  state.set_metadata(kOptimizerKey, optimizer_name(m.options.optimizer));
  state.set_producer("mote TrainingSession");
  return state.save(path + ".optimizer");
}

Status TrainingSession::restore_optimizer(const std::string& path) {
  Impl& m = *impl_;
  OneCaller::Scope scope(m.one_caller);
  if (!scope.acquired()) return OneCaller::busy_error("TrainingSession::restore_optimizer");
  MOTE_ASSIGN_OR_RETURN(auto file, Model::load(path + ".optimizer"));
  const std::string kind = file->metadata(kOptimizerKey);
  if (kind != optimizer_name(m.options.optimizer)) {
    return invalid_argument(file->source() + ": optimizer state is for '" + kind + "', this session uses '" +
                            optimizer_name(m.options.optimizer) + "'");
  }
  const std::vector<std::string> state_names = optimizer_state_names(m.options.optimizer);
  std::vector<std::vector<Tensor>> states;
  for (size_t i = 0; i < m.params.size(); ++i) {
    states.emplace_back();
    for (const auto& s : state_names) {
      const std::string name = m.names[i] + "/" + s;
      const int t = file->find_tensor(name);
      if (t < 0 || !file->tensor_data(t)) return not_found(file->source() + ": no optimizer state '" + name + "'");
      const fb::TensorT& info = *file->graph().tensors[static_cast<size_t>(t)];
      if (info.dtype != DType::F32 || info.shape != m.values[i].shape()) {
        return invalid_argument(file->source() + ": optimizer state '" + name + "' has shape " +
                                shape_to_string(info.shape) + ", the parameter " + shape_to_string(m.values[i].shape()));
      }
      states.back().push_back(Tensor::borrow(info.dtype, info.shape, file->tensor_data(t)).clone());
    }
  }
  try {
    m.step = std::stoll(file->metadata(kStepKey));
  } catch (const std::exception&) {
    return invalid_argument(file->source() + ": metadata '" + kStepKey + "' is not a step count");
  }
  m.states = std::move(states);
  return {};
}

int64_t TrainingSession::step() const { return impl_->step; }

float TrainingSession::learning_rate() const {
  return scheduled_learning_rate(impl_->options.optimizer.learning_rate, impl_->options.schedule, impl_->step);
}

std::vector<std::string> TrainingSession::trainable_names() const { return impl_->names; }

const Tensor* TrainingSession::parameter(const std::string& name) const {
  for (size_t i = 0; i < impl_->names.size(); ++i) {
    if (impl_->names[i] == name) return &impl_->values[i];
  }
  return nullptr;
}

PlanStats TrainingSession::train_plan_stats() const {
  return impl_->train.session ? impl_->train.session->plan_stats() : PlanStats{};
}

std::vector<OpPlacement> TrainingSession::train_placement() const {
  return impl_->train.session ? impl_->train.session->placement() : std::vector<OpPlacement>{};
}

std::vector<OpTime> TrainingSession::train_profile() const {
  return impl_->train.session ? impl_->train.session->profile() : std::vector<OpTime>{};
}

}  // namespace mote
