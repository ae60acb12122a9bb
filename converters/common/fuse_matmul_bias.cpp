// MatMul + bias: Add(MatMul(A, W), b), with W a constant [K, N] matrix and b
// a constant of N values along the last axis, becomes a Gemm with b as its C,
// which the CPU kernel adds as it stores the product: one pass over the
// output fewer, for the Linear layers of torch exports (MatMul then Add for
// inputs of rank 3) and the Dense layers of tf2onnx's. An A of rank above 2
// needs a static shape [..., K]: it is reshaped to [M, K] before the Gemm and
// the result back to [..., N] after (the CPU backend makes those Reshapes
// views, execution_plan.cpp; while it copied them, this measured no faster).
// With A of rank 2, a following activation then joins the Gemm
// (fuse_activations).
#include <algorithm>

#include "converters/common/passes.hpp"

namespace mote::convert {
namespace {

constexpr const char* kPass = "fuse_matmul_bias";

// The constant f32 [K, N] matrix W of MatMul(A, W), or nullptr.
const Value* constant_matrix(const Graph& g, const fb::OpT& mm) {
  if (mm.inputs.size() != 2 || mm.outputs.size() != 1 || mm.inputs[0] < 0 || mm.inputs[1] < 0) return nullptr;
  const Value& w = g.values[static_cast<size_t>(mm.inputs[1])];
  if (!w.is_constant() || w.data->dtype() != DType::F32 || w.data->shape().size() != 2) return nullptr;
  return &w;
}

// Input `i` of `add` when it is a constant f32 holding n values along the
// last axis (shape [n] or [1, n]), else -1.
int bias_input(const Graph& g, const fb::OpT& add, size_t i, int64_t n) {
  const int v = add.inputs[i];
  if (v < 0) return -1;
  const Value& b = g.values[static_cast<size_t>(v)];
  if (!b.is_constant() || b.data->dtype() != DType::F32 || b.data->numel() != n) return -1;
  const Shape& s = b.data->shape();
  if (s.empty() || s.size() > 2 || s.back() != n) return -1;
  return v;
}

// A constant i64 shape tensor for a Reshape.
int shape_constant(Graph& g, const std::string& base, const Shape& dims) {
  return g.add_derived_constant(base, Tensor::from_vector<int64_t>({static_cast<int64_t>(dims.size())}, dims));
}

}  // namespace

Status fuse_matmul_bias(Graph& graph, PassLog& log) {
  const std::vector<std::vector<int>> consumers = graph.consumers();
  // Matches first, rewrites after: inserting ops moves the indices.
  struct Match {
    fb::OpT* matmul;
    fb::OpT* add;
    int bias;
  };
  std::vector<Match> matches;
  for (auto& slot : graph.ops) {
    if (!slot || slot->type != fb::OpType::MatMul || slot->fused) continue;
    const Value* w = constant_matrix(graph, *slot);
    if (!w) continue;
    const Value& a = graph.values[static_cast<size_t>(slot->inputs[0])];
    if (!a.rank_known || a.shape.size() < 2 || (a.shape.size() > 2 && !a.shape_static())) continue;
    const int y = slot->outputs[0];
    const std::vector<int>& readers = consumers[static_cast<size_t>(y)];
    if (graph.is_output(y) || readers.size() != 1) continue;
    fb::OpT* add = graph.ops[static_cast<size_t>(readers[0])].get();
    if (!add || add->type != fb::OpType::Add || add->inputs.size() != 2 || add->fused) continue;
    const int64_t n = w->data->shape()[1];
    const size_t other = add->inputs[0] == y ? 1 : 0;
    if (add->inputs[1 - other] != y) continue;
    const int bias = bias_input(graph, *add, other, n);
    if (bias >= 0) matches.push_back({slot.get(), add, bias});
  }

  for (const Match& m : matches) {
    fb::OpT& mm = *m.matmul;
    const int64_t n = graph.values[static_cast<size_t>(mm.inputs[1])].data->shape()[1];
    int bias = m.bias;
    if (graph.values[static_cast<size_t>(bias)].data->shape().size() != 1) {
      // Copies first: adding a value may move the one they come from.
      const std::string base = graph.values[static_cast<size_t>(bias)].name;
      Tensor flat = graph.values[static_cast<size_t>(bias)].data->reshaped({n});
      bias = graph.add_derived_constant(base, std::move(flat));
    }
    log.count(kPass, "MatMul+Add");
    log.note(kPass, "fused " + Graph::op_label(*m.add) + " into " + Graph::op_label(mm) + " as a Gemm");
    const int a = mm.inputs[0], out = m.add->outputs[0];
    const Shape a_shape = graph.values[static_cast<size_t>(a)].shape;
    mm.type = fb::OpType::Gemm;
    set_attrs(mm, fb::GemmAttrsT{});
    mm.inputs.push_back(bias);
    mm.outputs = {out};
    if (a_shape.size() > 2) {
      // Reshape [..., K] -> [M, K], Gemm, Reshape [M, N] -> [..., N].
      const int64_t k = a_shape.back(), rows = shape_numel(a_shape) / std::max<int64_t>(k, 1);
      Shape out_shape = a_shape;
      out_shape.back() = n;
      const std::string name = mm.name;
      const int a2 = graph.add_derived_value(graph.values[static_cast<size_t>(a)].name + "_2d");
      graph.values[static_cast<size_t>(a2)].set_info(DType::F32, {rows, k});
      const int y2 = graph.add_derived_value(graph.values[static_cast<size_t>(out)].name + "_2d");
      graph.values[static_cast<size_t>(y2)].set_info(DType::F32, {rows, n});
      mm.inputs[0] = a2;
      mm.outputs = {y2};
      const int to_2d = shape_constant(graph, name + "_shape_2d", {rows, k});
      const int to_nd = shape_constant(graph, name + "_shape", out_shape);
      const size_t at = static_cast<size_t>(
          std::find_if(graph.ops.begin(), graph.ops.end(), [&](const auto& op) { return op.get() == &mm; }) -
          graph.ops.begin());
      set_attrs(graph.insert_op(at, fb::OpType::Reshape, name + "_to_2d", {a, to_2d}, {a2}), fb::ReshapeAttrsT{});
      set_attrs(graph.insert_op(at + 2, fb::OpType::Reshape, name + "_to_nd", {y2, to_nd}, {out}),
                fb::ReshapeAttrsT{});
    }
    for (auto& slot : graph.ops) {
      if (slot.get() == m.add) slot.reset();
    }
  }
  graph.compact();
  return {};
}

}  // namespace mote::convert
