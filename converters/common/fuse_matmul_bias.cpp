// MatMul + bias: Add(MatMul(A, W), b), with A of rank 2, W a constant [K, N]
// matrix and b a constant of N values along the last axis, becomes a Gemm
// with b as its C, which the CPU kernel adds as it stores the product (one
// pass over the output fewer: the Dense layers of tf2onnx exports, which
// write MatMul then Add), and a following activation can then join it
// (fuse_activations).
//
// Not for A of higher rank (torch's Linear on [batch, tokens, features]):
// wrapped in Reshapes to and from 2-D, the Gemm measured no faster than
// MatMul then Add on the peer benchmark's transformer encoder, because the
// CPU backend copies a Reshape's bytes (0.045 ms for 128 x 1024, as much as
// the Add it saved).
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

}  // namespace

Status fuse_matmul_bias(Graph& graph, PassLog& log) {
  const std::vector<std::vector<int>> consumers = graph.consumers();
  // Matches first, rewrites after, so the consumer table stays right.
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
    if (!a.rank_known || a.shape.size() != 2) continue;
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
      Tensor flat = *graph.values[static_cast<size_t>(bias)].data;
      bias = graph.add_derived_constant(graph.values[static_cast<size_t>(bias)].name, flat.reshaped({n}));
    }
    log.count(kPass, "MatMul+Add");
    log.note(kPass, "fused " + Graph::op_label(*m.add) + " into " + Graph::op_label(mm) + " as a Gemm");
    mm.type = fb::OpType::Gemm;
    set_attrs(mm, fb::GemmAttrsT{});
    mm.inputs.push_back(bias);
    mm.outputs = {m.add->outputs[0]};
    for (auto& slot : graph.ops) {
      if (slot.get() == m.add) slot.reset();
    }
  }
  graph.compact();
  return {};
}

}  // namespace mote::convert
