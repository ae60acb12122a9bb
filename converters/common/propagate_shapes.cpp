// Shape propagation: every op's output dtypes and shapes, written into the
// values (and from there into the .mote tensors, where tools and the
// runtime's planner can read them).
//
// With static input shapes the runtime's own shape functions decide. With a
// dynamic dimension they cannot run, and a few rules keep what is still
// known: elementwise ops keep their input's shape, broadcasting keeps every
// dimension some input fixes, Reshape to a constant shape, Transpose and
// MatMul keep the dims they move, Conv keeps a dynamic batch; anything else
// stays unknown.
#include "converters/common/dtype_rules.hpp"
#include "converters/common/op_eval.hpp"
#include "converters/common/passes.hpp"
#include "runtime/ops/conv_geometry.hpp"

#include <algorithm>
#include <limits>

namespace mote::convert {
namespace {

bool same_shape_as_input0(fb::OpType t) {
  using T = fb::OpType;
  switch (t) {
    case T::Sqrt: case T::Exp: case T::Log: case T::Abs: case T::Neg: case T::Reciprocal: case T::Relu:
    case T::LeakyRelu: case T::Sigmoid: case T::Tanh: case T::HardSigmoid: case T::HardSwish: case T::Elu:
    case T::Selu: case T::Gelu: case T::Erf: case T::Softplus: case T::Sin: case T::Cos: case T::Floor:
    case T::Ceil: case T::Round: case T::Sign: case T::Clip: case T::Not: case T::Cast: case T::Identity:
    case T::Softmax: case T::LogSoftmax: case T::BatchNormalization: case T::InstanceNormalization:
    case T::LayerNormalization: case T::Trilu: case T::ScatterElements: case T::Tan: case T::Asin: case T::Acos:
    case T::Atan: case T::Sinh: case T::Cosh: case T::Asinh: case T::Acosh: case T::Atanh: case T::Softsign:
    case T::RMSNormalization: case T::BitwiseNot: case T::RotaryEmbedding: case T::CumProd: case T::Hardmax: case T::ScatterND:
      return true;
    default:
      return false;
  }
}

bool broadcasting(fb::OpType t) {
  using T = fb::OpType;
  switch (t) {
    case T::Add: case T::Sub: case T::Mul: case T::Div: case T::Pow: case T::Mod: case T::Min: case T::Max:
    case T::PRelu: case T::Xor: case T::BitwiseAnd: case T::BitwiseOr: case T::BitwiseXor: case T::Equal: case T::Less: case T::Greater: case T::LessOrEqual: case T::GreaterOrEqual: case T::And:
    case T::Or: case T::Where:
      return true;
    default:
      return false;
  }
}

// Numpy broadcasting with -1 for unknown dimensions: a known dimension other
// than 1 wins; 1 against unknown is unknown.
std::optional<Shape> broadcast_partial(const Graph& graph, const fb::OpT& op) {
  Shape out;
  for (int v : op.inputs) {
    if (v < 0) continue;
    const Value& value = graph.values[static_cast<size_t>(v)];
    if (!value.rank_known) return std::nullopt;
    const Shape& s = value.shape;
    if (s.size() > out.size()) out.insert(out.begin(), s.size() - out.size(), 1);
    size_t offset = out.size() - s.size();
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t& o = out[offset + k];
      int64_t d = s[k];
      if (d == 1) continue;
      if (o == 1 || o == -1) {
        o = d;
      } else if (d != -1 && d != o) {
        return std::nullopt;  // incompatible: leave it to the runtime's error
      }
    }
  }
  return out;
}

// Reshape with a constant target: the target's dims, with 0 copied from the
// input and the -1 computed when the other dims are all known.
std::optional<Shape> reshape_partial(const Graph& graph, const fb::OpT& op) {
  if (op.inputs.size() < 2 || op.inputs[1] < 0) return std::nullopt;
  const Value& in = graph.values[static_cast<size_t>(op.inputs[0])];
  const Value& target = graph.values[static_cast<size_t>(op.inputs[1])];
  if (!target.is_constant()) return std::nullopt;
  Shape out = target.data->to_int64s();
  // Below -1 is no dimension (found by fuzzing): leave it to the runtime's Reshape to refuse.
  if (std::any_of(out.begin(), out.end(), [](int64_t d) { return d < -1; })) return std::nullopt;
  const bool allowzero = attrs<fb::ReshapeAttrsT>(op).allowzero;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 0 && !allowzero) out[i] = in.rank_known && i < in.shape.size() ? in.shape[i] : -1;
  }
  // The -1 stays unknown unless the input's element count is known.
  if (in.shape_static()) {
    int64_t known = 1, inferred = -1;
    for (size_t i = 0; i < out.size() && known > 0; ++i) {
      if (out[i] < 0) {
        inferred = inferred < 0 ? static_cast<int64_t>(i) : -2;
      } else if (out[i] > 0 && known > std::numeric_limits<int64_t>::max() / out[i]) {
        known = -1;  // the target overflows; the runtime's Reshape will say so
      } else {
        known *= out[i];
      }
    }
    if (inferred >= 0 && known > 0) out[static_cast<size_t>(inferred)] = shape_numel(in.shape) / known;
  }
  return out;
}

std::optional<Shape> transpose_partial(const Graph& graph, const fb::OpT& op) {
  const Value& in = graph.values[static_cast<size_t>(op.inputs[0])];
  if (!in.rank_known) return std::nullopt;
  std::vector<int64_t> perm = attrs<fb::TransposeAttrsT>(op).perm;
  const int64_t rank = static_cast<int64_t>(in.shape.size());
  if (perm.empty()) {
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  if (static_cast<int64_t>(perm.size()) != rank) return std::nullopt;
  Shape out;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank) return std::nullopt;
    out.push_back(in.shape[static_cast<size_t>(p)]);
  }
  return out;
}

// MatMul of two operands of rank >= 2: broadcast batch dims, then [M, N].
std::optional<Shape> matmul_partial(const Graph& graph, const fb::OpT& op) {
  const Value& a = graph.values[static_cast<size_t>(op.inputs[0])];
  const Value& b = graph.values[static_cast<size_t>(op.inputs[1])];
  if (!a.rank_known || !b.rank_known || a.shape.size() < 2 || b.shape.size() < 2) return std::nullopt;
  Shape batch_a(a.shape.begin(), a.shape.end() - 2), batch_b(b.shape.begin(), b.shape.end() - 2);
  Shape out = batch_a.size() >= batch_b.size() ? batch_a : batch_b;
  const Shape& other = batch_a.size() >= batch_b.size() ? batch_b : batch_a;
  for (size_t k = 0; k < other.size(); ++k) {
    int64_t& o = out[out.size() - other.size() + k];
    if (o == 1 || o == -1) o = other[k] == 1 && o == -1 ? -1 : other[k];
  }
  out.push_back(a.shape[a.shape.size() - 2]);
  out.push_back(b.shape.back());
  return out;
}

// Conv over an input whose only dynamic dimension is the batch: the output
// keeps that batch dimension (so later passes see a CNN's shapes whatever
// the batch).
std::optional<Shape> conv_partial(const Graph& graph, const fb::OpT& op) {
  if (op.inputs.size() < 2 || op.inputs[0] < 0 || op.inputs[1] < 0) return std::nullopt;
  const Value& x = graph.values[static_cast<size_t>(op.inputs[0])];
  const Value& w = graph.values[static_cast<size_t>(op.inputs[1])];
  if (!x.rank_known || x.shape.empty() || !w.shape_static()) return std::nullopt;
  Shape one_image = x.shape;
  one_image[0] = 1;
  if (std::any_of(one_image.begin(), one_image.end(), [](int64_t d) { return d < 0; })) return std::nullopt;
  auto g = resolve_conv(attrs<fb::ConvAttrsT>(op), one_image, w.shape);
  if (!g.ok()) return std::nullopt;
  Shape out = g->output_shape();
  out[0] = x.shape[0];
  return out;
}

// Whether a file may declare this shape: the product of its known (non-
// negative) dimensions, in bytes, fits 64 bits. One that does not is left
// unknown (the verifier refuses it; found by fuzzing), and the runtime's
// prepare names the op instead.
bool fits_in_a_file(const Shape& shape, DType dtype) {
  uint64_t bytes = std::max<uint64_t>(dtype_size(dtype), 1);
  for (int64_t d : shape) {
    if (d <= 0) continue;
    if (bytes > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(d)) return false;
    bytes *= static_cast<uint64_t>(d);
  }
  return true;
}

}  // namespace

// Shared with fold_constants: infers one op and records the result.
bool infer_and_record(Graph& graph, const fb::OpT& op) {
  apply_dtype_rules(graph, op);
  auto infos = infer_op(graph, op);
  auto storable = [](const TensorInfo& info) { return fits_in_a_file(info.shape, info.dtype); };
  if (infos.ok() && std::all_of(infos->begin(), infos->end(), storable)) {
    for (size_t i = 0; i < op.outputs.size(); ++i) {
      graph.values[static_cast<size_t>(op.outputs[i])].set_info((*infos)[i].dtype, (*infos)[i].shape);
    }
    return true;
  }
  std::optional<Shape> partial;
  if (same_shape_as_input0(op.type) && !op.inputs.empty() && op.inputs[0] >= 0) {
    const Value& in = graph.values[static_cast<size_t>(op.inputs[0])];
    if (in.rank_known) partial = in.shape;
  } else if (broadcasting(op.type)) {
    partial = broadcast_partial(graph, op);
  } else if (op.type == fb::OpType::Reshape) {
    partial = reshape_partial(graph, op);
  } else if (op.type == fb::OpType::Transpose && !op.inputs.empty() && op.inputs[0] >= 0) {
    partial = transpose_partial(graph, op);
  } else if (op.type == fb::OpType::MatMul && op.inputs.size() == 2) {
    partial = matmul_partial(graph, op);
  } else if (op.type == fb::OpType::Conv) {
    partial = conv_partial(graph, op);
  }
  if (partial && !op.outputs.empty() &&
      fits_in_a_file(*partial, graph.values[static_cast<size_t>(op.outputs[0])].dtype)) {
    Value& out = graph.values[static_cast<size_t>(op.outputs[0])];
    out.rank_known = true;
    out.shape = *partial;
  }
  return false;
}

Status propagate_shapes(Graph& graph, PassLog& log) {
  int64_t inferred = 0, unknown = 0;
  for (const auto& op : graph.ops) {
    if (!op) continue;
    if (infer_and_record(graph, *op)) {
      ++inferred;
    } else {
      ++unknown;
    }
  }
  log.count("propagate_shapes", "ops with static output shapes", inferred);
  if (unknown) log.count("propagate_shapes", "ops with dynamic or unknown shapes", unknown);
  return {};
}

}  // namespace mote::convert
