// Residual fusion: Add(Conv(x), r) becomes Conv(x, w, b, r), the Conv's
// optional residual input, added as the Conv stores its output (ResNet's
// shortcuts, MobileNetV2's inverted residuals). Runs before
// fuse_activations, which then folds a following Relu into the same Conv.
//
// Conditions: the Conv has no fused activation or residual yet (an
// activation before the Add must stay before it), its output has no other
// reader and is not a graph output, and r has the Add's shape: equal ranks
// and dimensions, a dynamic one only as the batch dimension of both (a
// residual must not broadcast). Two dynamic batches are taken to be the
// same, as they are when both derive from the graph's input; should r's be
// 1 at run time while the Conv's is not, the Conv refuses the run with the
// two shapes (never a wrong result). The Conv moves to the Add's place in the
// order, where r is known to exist; its own inputs existed before it.
#include "converters/common/passes.hpp"

namespace mote::convert {
namespace {

constexpr const char* kPass = "fuse_residual";

// True when r can stand in for the Add's other operand without broadcast.
bool same_shape(const Value& conv_out, const Value& r) {
  if (!conv_out.rank_known || !r.rank_known || conv_out.shape.size() != r.shape.size()) return false;
  if (!r.dtype_known || r.dtype != DType::F32) return false;
  for (size_t i = 0; i < r.shape.size(); ++i) {
    const bool dynamic = conv_out.shape[i] < 0 || r.shape[i] < 0;
    if (dynamic ? i != 0 || conv_out.shape[i] != r.shape[i] : conv_out.shape[i] != r.shape[i]) return false;
  }
  return true;
}

}  // namespace

Status fuse_residual_add(Graph& graph, PassLog& log) {
  const std::vector<int> producers = graph.producers();
  const std::vector<std::vector<int>> consumers = graph.consumers();
  for (auto& add : graph.ops) {
    if (!add || add->type != fb::OpType::Add || add->inputs.size() != 2 || add->outputs.size() != 1) continue;
    for (int side = 0; side < 2; ++side) {
      const int y = add->inputs[static_cast<size_t>(side)], r = add->inputs[static_cast<size_t>(1 - side)];
      if (y < 0 || r < 0 || y == r || producers[static_cast<size_t>(y)] < 0) continue;
      auto& conv = graph.ops[static_cast<size_t>(producers[static_cast<size_t>(y)])];
      if (!conv || conv->type != fb::OpType::Conv || conv->fused || conv->inputs.size() > 3 ||
          conv->outputs.size() != 1) {
        continue;
      }
      if (graph.is_output(y) || consumers[static_cast<size_t>(y)].size() != 1) continue;
      if (!same_shape(graph.values[static_cast<size_t>(y)], graph.values[static_cast<size_t>(r)])) continue;
      log.count(kPass, "Conv+Add");
      log.note(kPass, "fused " + Graph::op_label(*add) + " into " + Graph::op_label(*conv) + " as its residual");
      conv->inputs.resize(3, -1);
      conv->inputs.push_back(r);
      conv->outputs[0] = add->outputs[0];
      add = std::move(conv);  // the Conv takes the Add's place; its old slot is now empty
      break;
    }
  }
  graph.compact();
  return {};
}

}  // namespace mote::convert
