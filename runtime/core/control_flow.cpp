#include "runtime/core/control_flow.hpp"

#include <cstring>

#include "runtime/core/attrs.hpp"
#include "runtime/core/execution_plan.hpp"
#include "runtime/core/shape_util.hpp"

namespace mote {
namespace {

// Slice `index` of `t` along `axis`, that axis removed (Scan's per-iteration input).
Tensor slice_along(const Tensor& t, int axis, int64_t index) {
  Shape shape = t.shape();
  const int64_t n = shape[static_cast<size_t>(axis)];
  shape.erase(shape.begin() + axis);
  Tensor out = Tensor::zeros(t.dtype(), shape);
  int64_t outer = 1, inner = static_cast<int64_t>(dtype_size(t.dtype()));
  for (int a = 0; a < axis; ++a) outer *= t.dim(a);
  for (int a = axis + 1; a < t.rank(); ++a) inner *= t.dim(a);
  const auto* src = static_cast<const uint8_t*>(t.raw());
  auto* dst = static_cast<uint8_t*>(out.raw());
  for (int64_t o = 0; o < outer; ++o) {
    std::memcpy(dst + o * inner, src + (o * n + index) * inner, static_cast<size_t>(inner));
  }
  return out;
}

// The tensors of `parts` (one shape) stacked along a new axis `axis`, in
// order or reversed. With no parts, an empty tensor shaped like `declared`
// (unknown dims 0).
Result<Tensor> stack_along(const std::vector<Tensor>& parts, int64_t axis_attr, bool reverse, DType dtype,
                           const Shape& declared) {
  Shape part_shape = parts.empty() ? declared : parts[0].shape();
  if (parts.empty()) {
    for (int64_t& d : part_shape) d = d < 0 ? 0 : d;
  }
  auto axis = normalize_axis(axis_attr, static_cast<int>(part_shape.size()) + 1);
  if (!axis.ok()) return invalid_model("scan output axis " + std::to_string(axis_attr) + " out of range");
  Shape shape = part_shape;
  shape.insert(shape.begin() + *axis, static_cast<int64_t>(parts.size()));
  Tensor out = Tensor::zeros(parts.empty() ? dtype : parts[0].dtype(), shape);
  int64_t outer = 1, inner = static_cast<int64_t>(dtype_size(out.dtype()));
  for (int a = 0; a < *axis; ++a) outer *= part_shape[static_cast<size_t>(a)];
  for (size_t a = static_cast<size_t>(*axis); a < part_shape.size(); ++a) inner *= part_shape[a];
  const int64_t n = static_cast<int64_t>(parts.size());
  auto* dst = static_cast<uint8_t*>(out.raw());
  for (int64_t k = 0; k < n; ++k) {
    const Tensor& part = parts[static_cast<size_t>(reverse ? n - 1 - k : k)];
    if (part.shape() != part_shape || part.dtype() != out.dtype()) {
      return invalid_argument("scan output changes from " + shape_to_string(part_shape) + " to " +
                              shape_to_string(part.shape()) + " between iterations");
    }
    const auto* src = static_cast<const uint8_t*>(part.raw());
    for (int64_t o = 0; o < outer; ++o) std::memcpy(dst + (o * n + k) * inner, src + o * inner, static_cast<size_t>(inner));
  }
  return out;
}

Result<bool> read_condition(const Tensor& t, const char* what) {
  if (t.numel() != 1) return invalid_argument(std::string(what) + " must hold one element, got " + shape_to_string(t.shape()));
  return t.to_doubles()[0] != 0;
}

int64_t at(const std::vector<int64_t>& v, size_t i, int64_t dflt) { return i < v.size() ? v[i] : dflt; }

}  // namespace

bool is_control_flow(fb::OpType type) {
  return type == fb::OpType::If || type == fb::OpType::Loop || type == fb::OpType::Scan;
}

ControlFlow::ControlFlow(const Model& model, const fb::OpT& op, const SessionOptions& options)
    : model_(model), op_(op), options_(options) {}
ControlFlow::~ControlFlow() = default;

Result<std::unique_ptr<ControlFlow>> ControlFlow::create(const Model& model, const fb::GraphT& graph,
                                                         const fb::OpT& op, const SessionOptions& options) {
  std::unique_ptr<ControlFlow> cf(new ControlFlow(model, op, options));
  const size_t expected_bodies = op.type == fb::OpType::If ? 2 : 1;
  if (op.subgraphs.size() != expected_bodies) {
    return invalid_model("has " + std::to_string(op.subgraphs.size()) + " bodies, expected " +
                         std::to_string(expected_bodies));
  }
  const auto& attrs_table = attrs<fb::ControlFlowAttrsT>(op);
  for (size_t b = 0; b < op.subgraphs.size(); ++b) {
    Body body;
    body.graph = graph.subgraphs[op.subgraphs[b]].get();  // index checked by the verifier
    body.captures = static_cast<int>(at(attrs_table.body_captures, b, 0));
    if (body.captures < 0 || static_cast<size_t>(body.captures) > body.graph->inputs.size()) {
      return invalid_model("body " + std::to_string(b) + " captures " + std::to_string(body.captures) +
                           " values but has " + std::to_string(body.graph->inputs.size()) + " inputs");
    }
    cf->total_captures_ += body.captures;
    cf->bodies_.push_back(std::move(body));
  }
  const int n_in = static_cast<int>(op.inputs.size()) - cf->total_captures_;
  const int n_out = static_cast<int>(op.outputs.size());
  const fb::GraphT& g0 = *cf->bodies_[0].graph;
  const int formal_in = static_cast<int>(g0.inputs.size()) - cf->bodies_[0].captures;
  const int body_out = static_cast<int>(g0.outputs.size());
  auto mismatch = [](const std::string& what) { return invalid_model("operands do not match its body: " + what); };
  switch (op.type) {
    case fb::OpType::If:
      if (n_in != 1) return mismatch("expected one condition input before the captures");
      for (const Body& body : cf->bodies_) {
        if (static_cast<int>(body.graph->outputs.size()) != n_out) {
          return mismatch("a branch has " + std::to_string(body.graph->outputs.size()) + " outputs, the op " +
                          std::to_string(n_out));
        }
        if (static_cast<int>(body.graph->inputs.size()) != body.captures) return mismatch("a branch has formal inputs");
      }
      break;
    case fb::OpType::Loop:
      // Body: [iteration, cond, carried...]; outputs [cond, carried..., scans...].
      if (n_in < 2 || formal_in != n_in) return mismatch("the body takes " + std::to_string(formal_in) + " inputs, the op gives " + std::to_string(n_in));
      if (body_out < 1 + (n_in - 2) || body_out - 1 != n_out) return mismatch("the body has " + std::to_string(body_out) + " outputs for the op's " + std::to_string(n_out));
      break;
    case fb::OpType::Scan: {
      const int64_t scans = attrs_table.num_scan_inputs;
      if (scans < 1 || scans > n_in || formal_in != n_in) return mismatch("num_scan_inputs " + std::to_string(scans) + " with " + std::to_string(n_in) + " inputs");
      if (body_out != n_out || n_out < n_in - scans) return mismatch("the body has " + std::to_string(body_out) + " outputs for the op's " + std::to_string(n_out));
      break;
    }
    default: return internal_error("not a control-flow op");
  }
  return cf;
}

std::vector<Tensor> ControlFlow::captures_of(size_t b, const std::vector<const Tensor*>& inputs) const {
  size_t first = inputs.size() - static_cast<size_t>(total_captures_);
  for (size_t k = 0; k < b; ++k) first += static_cast<size_t>(bodies_[k].captures);
  std::vector<Tensor> out;
  for (int k = 0; k < bodies_[b].captures; ++k) out.push_back(*inputs[first + static_cast<size_t>(k)]);
  return out;
}

Result<std::vector<Tensor>> ControlFlow::run_body(Body& body, const std::vector<Tensor>& inputs, ThreadPool& pool) {
  const fb::GraphT& g = *body.graph;
  std::vector<Shape> shapes;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const fb::TensorT& declared = *g.tensors[static_cast<size_t>(g.inputs[k])];
    if (inputs[k].dtype() != declared.dtype) {
      return invalid_argument("body input " + std::to_string(k) + " ('" + declared.name + "') is " +
                              dtype_name(inputs[k].dtype()) + ", the body declares " + dtype_name(declared.dtype));
    }
    shapes.push_back(inputs[k].shape());
  }
  if (!body.plan || body.plan->input_shapes() != shapes) {
    body.plan.reset();
    MOTE_ASSIGN_OR_RETURN(body.plan, ExecutionPlan::build(model_, g, shapes, options_, pool));
  }
  return body.plan->run(inputs, pool);
}

Result<std::vector<Tensor>> ControlFlow::run(const std::vector<const Tensor*>& inputs, ThreadPool& pool) {
  // Only Loop's trip count and condition may be omitted; a file that omits
  // another operand is refused here rather than dereferenced (found by fuzzing).
  const size_t optional = op_.type == fb::OpType::Loop ? 2 : 0;
  for (size_t k = optional; k < inputs.size(); ++k) {
    if (!inputs[k]) return invalid_model("operand " + std::to_string(k) + " is omitted, but is required");
  }
  switch (op_.type) {
    case fb::OpType::If: return run_if(inputs, pool);
    case fb::OpType::Loop: return run_loop(inputs, pool);
    case fb::OpType::Scan: return run_scan(inputs, pool);
    default: return internal_error("not a control-flow op");
  }
}

Result<std::vector<Tensor>> ControlFlow::run_if(const std::vector<const Tensor*>& inputs, ThreadPool& pool) {
  MOTE_ASSIGN_OR_RETURN(bool cond, read_condition(*inputs[0], "the condition"));
  const size_t b = cond ? 0 : 1;
  auto out = run_body(bodies_[b], captures_of(b, inputs), pool);
  if (!out.ok()) return out.status().with_context(cond ? "then branch" : "else branch");
  return out;
}

Result<std::vector<Tensor>> ControlFlow::run_loop(const std::vector<const Tensor*>& inputs, ThreadPool& pool) {
  const size_t carried = inputs.size() - static_cast<size_t>(total_captures_) - 2;
  const size_t scans = op_.outputs.size() - carried;
  bool has_limit = inputs[0] != nullptr;
  int64_t limit = 0;
  if (has_limit) {
    if (inputs[0]->numel() != 1) return invalid_argument("trip count M must hold one element");
    limit = inputs[0]->to_int64s()[0];
  }
  bool cond = true;
  if (inputs[1]) {
    MOTE_ASSIGN_OR_RETURN(cond, read_condition(*inputs[1], "the loop condition"));
  }
  std::vector<Tensor> state;
  for (size_t k = 0; k < carried; ++k) state.push_back(*inputs[2 + k]);
  const std::vector<Tensor> captures = captures_of(0, inputs);
  std::vector<std::vector<Tensor>> scan_parts(scans);
  const fb::GraphT& g = *bodies_[0].graph;
  const DType cond_dtype = g.tensors[static_cast<size_t>(g.inputs[1])]->dtype;
  for (int64_t i = 0; (!has_limit || i < limit) && cond; ++i) {
    std::vector<Tensor> body_in;
    body_in.push_back(Tensor::from_vector<int64_t>({}, {i}));
    Tensor cond_tensor = Tensor::zeros(cond_dtype, {});
    if (cond_dtype == DType::Bool) *cond_tensor.data<bool>() = cond;
    body_in.push_back(std::move(cond_tensor));
    body_in.insert(body_in.end(), state.begin(), state.end());
    body_in.insert(body_in.end(), captures.begin(), captures.end());
    auto out = run_body(bodies_[0], body_in, pool);
    if (!out.ok()) return out.status().with_context("loop body, iteration " + std::to_string(i));
    MOTE_ASSIGN_OR_RETURN(cond, read_condition((*out)[0], "the body's condition output"));
    for (size_t k = 0; k < carried; ++k) state[k] = std::move((*out)[1 + k]);
    for (size_t k = 0; k < scans; ++k) scan_parts[k].push_back(std::move((*out)[1 + carried + k]));
  }
  std::vector<Tensor> outputs = std::move(state);
  for (size_t k = 0; k < scans; ++k) {
    const fb::TensorT& declared = *g.tensors[static_cast<size_t>(g.outputs[1 + carried + k])];
    MOTE_ASSIGN_OR_RETURN(Tensor stacked, stack_along(scan_parts[k], 0, false, declared.dtype, declared.shape));
    outputs.push_back(std::move(stacked));
  }
  return outputs;
}

Result<std::vector<Tensor>> ControlFlow::run_scan(const std::vector<const Tensor*>& inputs, ThreadPool& pool) {
  const auto& a = attrs<fb::ControlFlowAttrsT>(op_);
  const size_t scanned = static_cast<size_t>(a.num_scan_inputs);
  const size_t states = inputs.size() - static_cast<size_t>(total_captures_) - scanned;
  const size_t scans = op_.outputs.size() - states;
  std::vector<Tensor> state;
  for (size_t k = 0; k < states; ++k) state.push_back(*inputs[k]);
  int64_t length = -1;
  std::vector<int> axes(scanned);
  for (size_t k = 0; k < scanned; ++k) {
    const Tensor& x = *inputs[states + k];
    if (x.rank() < 1) return invalid_argument("scan input " + std::to_string(k) + " is a scalar; it needs an axis to scan");
    auto axis = normalize_axis(at(a.scan_input_axes, k, 0), x.rank());
    if (!axis.ok()) return invalid_argument("scan input " + std::to_string(k) + ": axis out of range for " + shape_to_string(x.shape()));
    axes[k] = *axis;
    const int64_t n = x.dim(*axis);
    if (length >= 0 && n != length) {
      return invalid_argument("scan inputs have different lengths (" + std::to_string(length) + " and " + std::to_string(n) + ")");
    }
    length = n;
  }
  const std::vector<Tensor> captures = captures_of(0, inputs);
  std::vector<std::vector<Tensor>> scan_parts(scans);
  for (int64_t t = 0; t < length; ++t) {
    std::vector<Tensor> body_in = state;
    for (size_t k = 0; k < scanned; ++k) {
      const int64_t index = at(a.scan_input_directions, k, 0) ? length - 1 - t : t;
      body_in.push_back(slice_along(*inputs[states + k], axes[k], index));
    }
    body_in.insert(body_in.end(), captures.begin(), captures.end());
    auto out = run_body(bodies_[0], body_in, pool);
    if (!out.ok()) return out.status().with_context("scan body, iteration " + std::to_string(t));
    for (size_t k = 0; k < states; ++k) state[k] = std::move((*out)[k]);
    for (size_t k = 0; k < scans; ++k) scan_parts[k].push_back(std::move((*out)[states + k]));
  }
  std::vector<Tensor> outputs = std::move(state);
  const fb::GraphT& g = *bodies_[0].graph;
  for (size_t k = 0; k < scans; ++k) {
    const fb::TensorT& declared = *g.tensors[static_cast<size_t>(g.outputs[states + k])];
    MOTE_ASSIGN_OR_RETURN(Tensor stacked, stack_along(scan_parts[k], at(a.scan_output_axes, k, 0),
                                                      at(a.scan_output_directions, k, 0) != 0, declared.dtype,
                                                      declared.shape));
    outputs.push_back(std::move(stacked));
  }
  return outputs;
}

}  // namespace mote
