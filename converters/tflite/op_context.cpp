#include "converters/tflite/op_context.hpp"

#include <algorithm>
#include <cstring>

#include "converters/tflite/tflite_tensors.hpp"

namespace mote::convert {
namespace {

// NHWC -> NCHW and back, as Transpose perms.
const std::vector<int64_t> kToNchw = {0, 3, 1, 2};
const std::vector<int64_t> kToNhwc = {0, 2, 3, 1};

}  // namespace

int64_t nchw_axis(int64_t axis) {
  static const int64_t map[4] = {0, 2, 3, 1};
  if (axis < 0) axis += 4;
  return axis >= 0 && axis < 4 ? map[axis] : axis;
}

std::string TfliteImportState::tensor_name(int index) const {
  const auto* name = tensor(index).name();
  return name && name->size() > 0 ? name->str() : "tensor_" + std::to_string(index);
}

int TfliteImportState::value_of(int t, Layout layout, bool as_float, const std::string& op_name, std::string& error) {
  auto key = std::make_tuple(t, layout, as_float);
  if (auto it = held.find(key); it != held.end()) return it->second;
  const tfl::Tensor& tensor = this->tensor(t);
  const std::string name = tensor_name(t);
  if (as_float && !is_quantized(tensor)) return value_of(t, layout, false, op_name, error);
  if (as_float) {
    int stored = value_of(t, layout, false, op_name, error);
    if (stored < 0) return -1;
    QuantParams q = quant_params(tensor);
    int64_t axis = q.axis;
    if (layout == Layout::kNchw && q.scales.size() > 1) axis = nchw_axis(axis);
    int v = dequantize(graph, stored, q, axis, tensor_dtype(tensor), name, op_name);
    held[key] = v;
    return v;
  }
  const bool rank4 = tensor.shape() && tensor.shape()->size() == 4;
  if (layout == Layout::kNchw && !rank4) {
    error = "tensor '" + name + "' is not 4-D and has no NCHW form";
    return -1;
  }
  if (auto data = constant_data(*this, t, error)) {
    if (layout == Layout::kNchw) data = permute(*data, kToNchw);
    int v = graph.add_derived_constant(layout == Layout::kNchw ? name + "_nchw" : name, std::move(*data));
    held[key] = v;
    return v;
  }
  if (!error.empty()) return -1;
  // Written in the other order: one Transpose, shared by every later reader.
  Layout other = layout == Layout::kNchw ? Layout::kNhwc : Layout::kNchw;
  auto it = held.find(std::make_tuple(t, other, false));
  if (it == held.end()) {
    error = "reads tensor '" + name + "' before any operator writes it";
    return -1;
  }
  int v = graph.add_derived_value(name + (layout == Layout::kNchw ? "_nchw" : "_nhwc"));
  fb::TransposeAttrsT a;
  a.perm = layout == Layout::kNchw ? kToNchw : kToNhwc;
  set_attrs(graph.add_op(fb::OpType::Transpose, name + "/to_" + (layout == Layout::kNchw ? "nchw" : "nhwc"),
                         {it->second}, {v}),
            std::move(a));
  held[key] = v;
  return v;
}

TfliteOpContext::TfliteOpContext(TfliteImportState& state, const tfl::Operator& op, int index, std::string op_type)
    : state_(state), op_(op), index_(index), op_type_(std::move(op_type)) {
  name_ = output_count() > 0 && tensor_index(0, true) >= 0 ? state_.tensor_name(tensor_index(0, true))
                                                            : op_type_ + "_" + std::to_string(index);
}

int TfliteOpContext::tensor_index(int i, bool output) const {
  const auto* list = output ? op_.outputs() : op_.inputs();
  if (!list || i < 0 || static_cast<uint32_t>(i) >= list->size()) return -1;
  return list->Get(static_cast<uint32_t>(i));
}

int TfliteOpContext::input_count() const { return op_.inputs() ? static_cast<int>(op_.inputs()->size()) : 0; }
int TfliteOpContext::output_count() const { return op_.outputs() ? static_cast<int>(op_.outputs()->size()) : 0; }
bool TfliteOpContext::has_input(int i) const { return tensor_index(i, false) >= 0; }

DType TfliteOpContext::input_dtype(int i) const {
  return has_input(i) ? tensor_dtype(state_.tensor(tensor_index(i, false))) : DType::F32;
}

Shape TfliteOpContext::input_shape(int i) const {
  return has_input(i) ? tensor_shape(state_.tensor(tensor_index(i, false))) : Shape{};
}

Shape TfliteOpContext::output_shape(int i) const {
  int t = tensor_index(i, true);
  return t >= 0 ? tensor_shape(state_.tensor(t)) : Shape{};
}

DType TfliteOpContext::output_dtype(int i) const {
  int t = tensor_index(i, true);
  return t >= 0 ? tensor_dtype(state_.tensor(t)) : DType::F32;
}

bool TfliteOpContext::input_is_constant(int i) const {
  return has_input(i) && has_constant_data(state_, tensor_index(i, false));
}

bool TfliteOpContext::input_is_quantized(int i) const {
  return has_input(i) && is_quantized(state_.tensor(tensor_index(i, false)));
}

bool TfliteOpContext::input_held_nchw(int i) const {
  int t = tensor_index(i, false);
  return t >= 0 && state_.held.count({t, Layout::kNchw, false}) && !state_.held.count({t, Layout::kNhwc, false});
}

int TfliteOpContext::input(int i, Layout layout) {
  if (!has_input(i)) {
    fail(invalid("input " + std::to_string(i) + " is required"));
    return -1;
  }
  std::string error;
  int v = state_.value_of(tensor_index(i, false), layout, true, name_, error);
  if (v < 0) fail(invalid(error));
  return v;
}

int TfliteOpContext::raw_input(int i, Layout layout) {
  if (!has_input(i)) {
    fail(invalid("input " + std::to_string(i) + " is required"));
    return -1;
  }
  std::string error;
  int v = state_.value_of(tensor_index(i, false), layout, false, name_, error);
  if (v < 0) fail(invalid(error));
  return v;
}

int TfliteOpContext::permuted_input(int i, const std::vector<int64_t>& perm) {
  int t = tensor_index(i, false);
  if (t < 0) {
    fail(invalid("input " + std::to_string(i) + " is required"));
    return -1;
  }
  std::string error;
  if (auto it = state_.permuted.find({t, perm}); it != state_.permuted.end()) return it->second;
  if (auto data = constant_data(state_, t, error)) {
    const tfl::Tensor& tensor = state_.tensor(t);
    int v = constant(permute(*data, perm), "weights");
    if (is_quantized(tensor)) {
      QuantParams q = quant_params(tensor);
      int64_t axis = q.axis;
      for (size_t k = 0; k < perm.size(); ++k) {
        if (perm[k] == q.axis) axis = static_cast<int64_t>(k);
      }
      v = dequantize(state_.graph, v, q, axis, tensor_dtype(tensor), state_.tensor_name(t), name_,
                     /*fold_constant=*/false);
    }
    state_.permuted[{t, perm}] = v;
    return v;
  }
  if (!error.empty()) {
    fail(invalid(error));
    return -1;
  }
  int x = input(i);
  int v = temp("permuted");
  fb::TransposeAttrsT a;
  a.perm = perm;
  emit(fb::OpType::Transpose, {x}, {v}, std::move(a));
  return v;
}

std::optional<std::vector<int64_t>> TfliteOpContext::constant_ints(int i) const {
  if (!has_input(i)) return std::nullopt;
  std::string error;
  auto data = constant_data(state_, tensor_index(i, false), error);
  if (!data) return std::nullopt;
  std::vector<int64_t> out(static_cast<size_t>(data->numel()));
  switch (data->dtype()) {
    case DType::I32:
      for (size_t k = 0; k < out.size(); ++k) out[k] = data->data<int32_t>()[k];
      return out;
    case DType::I64:
      std::memcpy(out.data(), data->data<int64_t>(), out.size() * sizeof(int64_t));
      return out;
    default: return std::nullopt;
  }
}

int TfliteOpContext::output_value(int i, Layout layout, bool as_float) {
  int t = tensor_index(i, true);
  if (t < 0) {
    fail(invalid("output " + std::to_string(i) + " is missing"));
    return -1;
  }
  const tfl::Tensor& tensor = state_.tensor(t);
  const std::string name = state_.tensor_name(t);
  if (layout == Layout::kNchw && tensor_shape(tensor).size() != 4) {
    fail(invalid("output '" + name + "' is not 4-D"));
    return -1;
  }
  if (state_.held.count({t, Layout::kNhwc, false}) || state_.held.count({t, Layout::kNchw, false})) {
    fail(invalid("tensor '" + name + "' is written by more than one operator"));
    return -1;
  }
  // A graph output keeps its name for the NHWC form the importer ends with.
  const bool named = layout == Layout::kNhwc || !state_.is_graph_output[static_cast<size_t>(t)];
  int v = named ? state_.graph.add_value(name) : state_.graph.add_derived_value(name + "_nchw");
  state_.held[{t, layout, false}] = v;
  if (as_float && is_quantized(tensor)) {
    int f = temp("float");
    // Readers dequantise the stored value rather than read `f`: they must
    // see the output's rounding, as in TFLite.
    quantizations_.push_back({t, f, v, layout});
    main_outputs_.push_back(f);
    return f;
  }
  main_outputs_.push_back(v);
  return v;
}

int TfliteOpContext::output(int i, Layout layout) { return output_value(i, layout, true); }
int TfliteOpContext::raw_output(int i, Layout layout) { return output_value(i, layout, false); }

int TfliteOpContext::output_before(tfl::ActivationFunctionType act, int i, Layout layout) {
  int out = output(i, layout);
  if (act == tfl::ActivationFunctionType::NONE || out < 0) return out;
  int pre = temp("before_activation");
  activations_.push_back({act, pre, out});
  main_outputs_.push_back(pre);
  return pre;
}

fb::OpT& TfliteOpContext::emit(fb::OpType type, std::vector<int> inputs, std::vector<int> outputs) {
  bool main = false;
  for (int v : outputs) main = main || std::find(main_outputs_.begin(), main_outputs_.end(), v) != main_outputs_.end();
  // Only the first op writing a main output takes the plain name.
  if (main) main_outputs_.clear();
  std::string op_name = main ? name_ : name_ + "/" + std::to_string(++helpers_);
  return state_.graph.add_op(type, op_name, std::move(inputs), std::move(outputs));
}

int TfliteOpContext::temp(const std::string& suffix) { return state_.graph.add_derived_value(name_ + "/" + suffix); }

int TfliteOpContext::constant(Tensor t, const std::string& suffix) {
  return state_.graph.add_derived_constant(name_ + "/" + suffix, std::move(t));
}

int TfliteOpContext::constant_i64(const std::vector<int64_t>& values, const std::string& suffix) {
  return constant(Tensor::from_vector<int64_t>({static_cast<int64_t>(values.size())}, values), suffix);
}

int TfliteOpContext::scalar_f32(float value, const std::string& suffix) {
  return constant(Tensor::from_vector<float>({}, {value}), suffix);
}

std::string TfliteOpContext::where() const {
  return state_.file + ": operator " + std::to_string(index_) + " (" + op_type_ + ", output '" + name_ + "')";
}

Status TfliteOpContext::unsupported(const std::string& why) const {
  return {StatusCode::kUnsupported, where() + ": " + why};
}

Status TfliteOpContext::invalid(const std::string& why) const { return invalid_model(where() + ": " + why); }

void TfliteOpContext::fail(Status s) {
  if (status_.ok()) status_ = std::move(s);
}

void TfliteOpContext::finish() {
  for (const Pending& p : activations_) {
    switch (p.act) {
      case tfl::ActivationFunctionType::RELU: emit(fb::OpType::Relu, {p.from}, {p.to}); break;
      case tfl::ActivationFunctionType::RELU_N1_TO_1:
        emit(fb::OpType::Clip, {p.from, scalar_f32(-1, "min"), scalar_f32(1, "max")}, {p.to});
        break;
      case tfl::ActivationFunctionType::RELU6:
        emit(fb::OpType::Clip, {p.from, scalar_f32(0, "min"), scalar_f32(6, "max")}, {p.to});
        break;
      case tfl::ActivationFunctionType::TANH: emit(fb::OpType::Tanh, {p.from}, {p.to}); break;
      default:
        fail(unsupported("fused activation " + std::to_string(static_cast<int>(p.act)) +
                         " (SIGN_BIT or unknown) is not supported"));
    }
  }
  for (const PendingQuantize& q : quantizations_) {
    const tfl::Tensor& tensor = state_.tensor(q.tensor);
    QuantParams params = quant_params(tensor);
    int64_t axis = q.layout == Layout::kNchw && params.scales.size() > 1 ? nchw_axis(params.axis) : params.axis;
    quantize(state_.graph, q.from, q.to, params, axis, tensor_dtype(tensor), name_);
  }
}

}  // namespace mote::convert
