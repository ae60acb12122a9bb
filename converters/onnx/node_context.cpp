#include "converters/onnx/node_context.hpp"

#include "converters/onnx/tensor_proto.hpp"
#include "onnx.pb.h"

namespace mote::convert {

int ImportState::resolve(const std::string& name) {
  auto it = by_name.find(name);
  if (it != by_name.end()) return it->second;
  const int outer = parent ? parent->resolve(name) : -1;
  if (outer < 0) return -1;
  const Value& value = parent->graph.values[static_cast<size_t>(outer)];
  int local;
  if (value.is_constant()) {
    local = graph.add_constant(name, *value.data);
  } else {
    std::optional<Shape> shape;
    if (value.rank_known) shape = value.shape;
    local = graph.add_input(name, value.dtype_known ? value.dtype : DType::F32, shape);
    captures.push_back(outer);
  }
  by_name[name] = local;
  return local;
}

NodeContext::NodeContext(ImportState& state, const onnx::NodeProto& node, std::string name)
    : state_(state), node_(node), name_(std::move(name)) {}

const std::string& NodeContext::op_type() const { return node_.op_type(); }

std::string NodeContext::where() const {
  return state_.file + ": node '" + name_ + "' (" + node_.op_type() + ", opset " + std::to_string(state_.opset) + ")";
}

Status NodeContext::unsupported(const std::string& why) const { return mote::unsupported(where() + ": " + why); }
Status NodeContext::invalid(const std::string& why) const { return invalid_model(where() + ": " + why); }

void NodeContext::fail(Status s) {
  if (status_.ok()) status_ = std::move(s);
}

// ---- inputs ----------------------------------------------------------------

const Value& NodeContext::value(int v) const {
  static const Value kOmitted{};
  const auto& values = state_.graph.values;
  return v >= 0 && static_cast<size_t>(v) < values.size() ? values[static_cast<size_t>(v)] : kOmitted;
}

size_t NodeContext::input_count() const { return static_cast<size_t>(node_.input_size()); }

bool NodeContext::has_input(size_t i) const {
  return i < input_count() && !node_.input(static_cast<int>(i)).empty();
}

int NodeContext::optional_input(size_t i) const {
  if (!has_input(i)) return -1;
  // The importer resolved every input name before calling the mapper.
  return state_.resolve(node_.input(static_cast<int>(i)));
}

int NodeContext::input(size_t i) {
  int v = optional_input(i);
  if (v < 0) fail(invalid("required input " + std::to_string(i) + " is missing"));
  return v;
}

const Tensor* NodeContext::constant_input(size_t i) const {
  int v = optional_input(i);
  if (v < 0) return nullptr;
  const Value& value = state_.graph.values[static_cast<size_t>(v)];
  return value.data ? &*value.data : nullptr;
}

std::vector<int64_t> NodeContext::constant_ints(size_t i, const std::string& what) {
  const Tensor* t = constant_input(i);
  if (!t) {
    fail(unsupported(what + " (input " + std::to_string(i) + ") must be a constant"));
    return {};
  }
  if (t->dtype() != DType::I64 && t->dtype() != DType::I32) {
    fail(invalid(what + " (input " + std::to_string(i) + ") must be int32 or int64, not " + dtype_name(t->dtype())));
    return {};
  }
  return t->to_int64s();
}

std::optional<DType> NodeContext::input_dtype(size_t i) const {
  int v = optional_input(i);
  if (v < 0 || !value(v).dtype_known) return std::nullopt;
  return value(v).dtype;
}

std::optional<int> NodeContext::input_rank(size_t i) const {
  int v = optional_input(i);
  if (v < 0 || !value(v).rank_known) return std::nullopt;
  return static_cast<int>(value(v).shape.size());
}

// ---- outputs ---------------------------------------------------------------

size_t NodeContext::output_count() const { return static_cast<size_t>(node_.output_size()); }

bool NodeContext::has_output(size_t i) const {
  return i < output_count() && !node_.output(static_cast<int>(i)).empty();
}

int NodeContext::output(size_t i) {
  if (!has_output(i)) return temp("unused_output_" + std::to_string(i));
  const std::string& name = node_.output(static_cast<int>(i));
  auto it = state_.by_name.find(name);
  if (it != state_.by_name.end()) return it->second;
  int v = state_.graph.add_value(name);
  state_.by_name[name] = v;
  return v;
}

void NodeContext::set_output_constant(size_t i, Tensor data) {
  if (!has_output(i)) return;
  const std::string& name = node_.output(static_cast<int>(i));
  if (state_.by_name.count(name)) {
    fail(invalid("output '" + name + "' is already defined"));
    return;
  }
  state_.by_name[name] = state_.graph.add_constant(name, std::move(data));
}

std::vector<int> NodeContext::all_outputs() {
  std::vector<int> outs;
  for (size_t i = 0; i < output_count(); ++i) outs.push_back(output(i));
  return outs;
}

// ---- attributes ------------------------------------------------------------

const onnx::AttributeProto* NodeContext::find_attr(const std::string& name) const {
  for (const auto& a : node_.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

bool NodeContext::has_attr(const std::string& name) const { return find_attr(name) != nullptr; }

bool NodeContext::check_attr_type(const onnx::AttributeProto& a, int type, const char* type_name) {
  // Very old exporters leave `type` unset (0); trust the filled field then.
  if (a.type() == type || a.type() == onnx::AttributeProto::UNDEFINED) return true;
  if (!a.ref_attr_name().empty()) {
    fail(unsupported("attribute '" + a.name() + "' refers to a function attribute"));
    return false;
  }
  fail(invalid("attribute '" + a.name() + "' must be " + type_name + ", got " +
               onnx::AttributeProto::AttributeType_Name(a.type())));
  return false;
}

int64_t NodeContext::attr_int(const std::string& name, int64_t dflt) {
  const auto* a = find_attr(name);
  if (!a || !check_attr_type(*a, onnx::AttributeProto::INT, "INT")) return dflt;
  return a->i();
}

float NodeContext::attr_float(const std::string& name, float dflt) {
  const auto* a = find_attr(name);
  if (!a || !check_attr_type(*a, onnx::AttributeProto::FLOAT, "FLOAT")) return dflt;
  return a->f();
}

std::string NodeContext::attr_string(const std::string& name, const std::string& dflt) {
  const auto* a = find_attr(name);
  if (!a || !check_attr_type(*a, onnx::AttributeProto::STRING, "STRING")) return dflt;
  return a->s();
}

std::vector<int64_t> NodeContext::attr_ints(const std::string& name) {
  const auto* a = find_attr(name);
  if (!a || !check_attr_type(*a, onnx::AttributeProto::INTS, "INTS")) return {};
  return {a->ints().begin(), a->ints().end()};
}

std::vector<std::string> NodeContext::attr_strings(const std::string& name) {
  const auto* a = find_attr(name);
  if (!a || !check_attr_type(*a, onnx::AttributeProto::STRINGS, "STRINGS")) return {};
  return {a->strings().begin(), a->strings().end()};
}

std::vector<float> NodeContext::attr_floats(const std::string& name) {
  const auto* a = find_attr(name);
  if (!a || !check_attr_type(*a, onnx::AttributeProto::FLOATS, "FLOATS")) return {};
  return {a->floats().begin(), a->floats().end()};
}

std::optional<Tensor> NodeContext::attr_tensor(const std::string& name) {
  const auto* a = find_attr(name);
  if (!a || !check_attr_type(*a, onnx::AttributeProto::TENSOR, "TENSOR")) return std::nullopt;
  auto t = tensor_from_proto(a->t(), state_.model_dir, "attribute '" + name + "'");
  if (!t.ok()) {
    fail(Status(t.status().code(), where() + ": " + t.status().message()));
    return std::nullopt;
  }
  return std::move(t).value();
}

std::optional<ImportedBody> NodeContext::body(const std::string& name,
                                              const std::vector<std::optional<DType>>& formal_dtypes) {
  const auto* a = find_attr(name);
  if (!a) {
    fail(invalid("has no attribute '" + name + "'"));
    return std::nullopt;
  }
  if (!check_attr_type(*a, onnx::AttributeProto::GRAPH, "GRAPH")) return std::nullopt;
  auto imported = import_subgraph(state_, a->g(), formal_dtypes);
  if (!imported.ok()) {
    fail(Status(imported.status().code(), where() + ": " + name + ": " + imported.status().message()));
    return std::nullopt;
  }
  return std::move(imported).value();
}

// ---- building --------------------------------------------------------------

fb::OpT& NodeContext::emit(fb::OpType type, std::vector<int> inputs, std::vector<int> outputs) {
  // The op writing the node's outputs takes the node's name, so errors and
  // reports name what the user knows; helpers of a rewrite get suffixes.
  bool writes_node_output = false;
  for (int v : outputs) {
    for (const std::string& name : node_.output()) {
      auto it = name.empty() ? state_.by_name.end() : state_.by_name.find(name);
      writes_node_output = writes_node_output || (it != state_.by_name.end() && it->second == v);
    }
  }
  std::string op_name = writes_node_output ? name_ : name_ + "/" + std::to_string(++helpers_);
  fb::OpT& op = state_.graph.add_op(type, op_name, std::move(inputs), std::move(outputs));
  return op;
}

int NodeContext::temp(const std::string& suffix) { return state_.graph.add_derived_value(name_ + "/" + suffix); }

int NodeContext::constant(Tensor t, const std::string& suffix) {
  return state_.graph.add_derived_constant(name_ + "/" + suffix, std::move(t));
}

int NodeContext::constant_i64(const std::vector<int64_t>& values, const std::string& suffix) {
  return constant(Tensor::from_vector<int64_t>({static_cast<int64_t>(values.size())}, values), suffix);
}

namespace {

// Whether `value` converts to an integer dtype without undefined behaviour.
// (NaN fails every comparison, so it fits no integer dtype either.)
bool fits_integer(DType dtype, double value) {
  switch (dtype) {
    case DType::I8: return value > -129.0 && value < 128.0;
    case DType::U8: return value > -1.0 && value < 256.0;
    case DType::I32: return value > -2147483649.0 && value < 2147483648.0;
    case DType::I64: return value >= -9223372036854775808.0 && value < 9223372036854775808.0;
    default: return true;
  }
}

}  // namespace

int NodeContext::scalar(DType dtype, double value, const std::string& suffix, bool one_d) {
  if (!fits_integer(dtype, value)) {
    fail(unsupported("needs the constant " + std::to_string(value) + " as " + dtype_name(dtype) +
                     ", which cannot hold it (is the input's dtype right for this op?)"));
    return -1;
  }
  Tensor t = Tensor::zeros(dtype, one_d ? Shape{1} : Shape{});
  switch (dtype) {
    case DType::F32: *t.data<float>() = static_cast<float>(value); break;
    case DType::F64: *t.data<double>() = value; break;
    case DType::I32: *t.data<int32_t>() = static_cast<int32_t>(value); break;
    case DType::I64: *t.data<int64_t>() = static_cast<int64_t>(value); break;
    case DType::I8: *t.data<int8_t>() = static_cast<int8_t>(value); break;
    case DType::U8: *t.data<uint8_t>() = static_cast<uint8_t>(value); break;
    case DType::Bool: *t.data<uint8_t>() = value != 0; break;
    case DType::F16: fail(internal_error("scalar(): f16 constants are not created by mappers")); break;
  }
  return constant(std::move(t), suffix);
}

}  // namespace mote::convert
