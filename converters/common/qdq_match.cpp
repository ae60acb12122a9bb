#include "converters/common/qdq_match.hpp"

#include <algorithm>
#include <cstring>

#include "converters/common/passes.hpp"
#include "runtime/ops/qlinear_conv.hpp"
#include "runtime/ops/quantize.hpp"

namespace mote::convert::qdq {

const Value* constant_input(const Graph& g, const fb::OpT& op, size_t i) {
  if (i >= op.inputs.size() || op.inputs[i] < 0) return nullptr;
  const Value& v = g.values[static_cast<size_t>(op.inputs[i])];
  return v.is_constant() ? &v : nullptr;
}

const fb::OpT* producer_of(const Graph& g, const std::vector<int>& producers, int v, fb::OpType type) {
  if (v < 0 || producers[static_cast<size_t>(v)] < 0) return nullptr;
  const fb::OpT* op = g.ops[static_cast<size_t>(producers[static_cast<size_t>(v)])].get();
  return op && op->type == type ? op : nullptr;
}

int sole_reader(const Graph& g, const std::vector<std::vector<int>>& consumers, int v) {
  const auto& readers = consumers[static_cast<size_t>(v)];
  return readers.size() == 1 && !g.is_output(v) ? readers[0] : -1;
}

bool usable_scales(const Tensor& scales, bool zero_ok) {
  const std::vector<double> values = scales.to_doubles();
  return std::all_of(values.begin(), values.end(),
                     [zero_ok](double v) { return (zero_ok && v == 0.0) || usable_qlinear_scale(v); });
}

bool per_tensor_8bit(const Graph& g, const fb::OpT& q) {
  const Value* scale = constant_input(g, q, 1);
  if (!scale || scale->data->numel() != 1 || scale->data->dtype() != DType::F32) return false;
  if (!usable_scales(*scale->data)) return false;
  if (q.inputs.size() < 3 || q.inputs[2] < 0) return true;
  const Value* zero = constant_input(g, q, 2);
  return zero && zero->data->numel() == 1 && is_8bit(zero->data->dtype());
}

std::string match_input(const Graph& g, const fb::OpT& dq_x) {
  if (!per_tensor_8bit(g, dq_x)) return "input not per-tensor 8-bit";
  const Value& x_q = g.values[static_cast<size_t>(dq_x.inputs[0])];
  if ((dq_x.inputs.size() < 3 || dq_x.inputs[2] < 0) && !x_q.dtype_known) return "input dtype unknown";
  if (x_q.dtype_known && !is_8bit(x_q.dtype)) return "input not 8-bit";
  return "";
}

std::string match_output(const Graph& g, const std::vector<std::vector<int>>& consumers, int output, Match& m,
                         bool allow_activation) {
  int next = sole_reader(g, consumers, output);
  if (next < 0) return "float output read elsewhere";
  const fb::OpT* op = g.ops[static_cast<size_t>(next)].get();
  if (allow_activation && (op->type == fb::OpType::Relu || op->type == fb::OpType::Clip)) {
    auto fused = as_fused(g, *op);
    if (!fused) return "Clip bounds not constant";
    m.activation = next;
    next = sole_reader(g, consumers, op->outputs[0]);
    if (next < 0) return "float output read elsewhere";
    op = g.ops[static_cast<size_t>(next)].get();
  }
  if (op->type != fb::OpType::QuantizeLinear ||
      op->inputs[0] != (m.activation >= 0 ? g.ops[static_cast<size_t>(m.activation)]->outputs[0] : output)) {
    return "output not quantised";
  }
  if (!per_tensor_8bit(g, *op)) return "output not per-tensor 8-bit";
  m.quantize = next;
  return "";
}

int zero_point(Graph& g, const fb::OpT& q, DType dtype, const std::string& name) {
  if (q.inputs.size() > 2 && q.inputs[2] >= 0) return q.inputs[2];
  return g.add_derived_constant(name, Tensor::zeros(dtype, {}));
}

DType quantized_dtype(const Graph& graph, const fb::OpT& q) {
  if (q.inputs.size() > 2 && q.inputs[2] >= 0) return graph.values[static_cast<size_t>(q.inputs[2])].data->dtype();
  return has_attrs<fb::QuantizeAttrsT>(q) ? attrs<fb::QuantizeAttrsT>(q).output_dtype : DType::U8;
}

DType dequantized_dtype(const Graph& graph, const fb::OpT& dq) {
  if (dq.inputs.size() > 2 && dq.inputs[2] >= 0) return graph.values[static_cast<size_t>(dq.inputs[2])].data->dtype();
  return graph.values[static_cast<size_t>(dq.inputs[0])].dtype;
}

void finish_fold(Graph& graph, const Match& m, std::unique_ptr<fb::OpT> folded, size_t i) {
  if (m.activation >= 0) {
    folded->fused =
        std::make_unique<fb::FusedActivationT>(*as_fused(graph, *graph.ops[static_cast<size_t>(m.activation)]));
    graph.ops[static_cast<size_t>(m.activation)].reset();
  }
  graph.ops[static_cast<size_t>(m.quantize)].reset();
  graph.ops[i] = std::move(folded);
}

Tensor transposed_2d(const Tensor& t) {
  const int64_t rows = t.dim(0), cols = t.dim(1);
  const size_t size = dtype_size(t.dtype());
  Tensor out = Tensor::zeros(t.dtype(), {cols, rows});
  const auto* src = static_cast<const uint8_t*>(t.raw());
  auto* dst = static_cast<uint8_t*>(out.raw());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      std::memcpy(dst + static_cast<size_t>(c * rows + r) * size, src + static_cast<size_t>(r * cols + c) * size,
                  size);
    }
  }
  return out;
}

}  // namespace mote::convert::qdq
