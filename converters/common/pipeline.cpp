// The fixed pass order of mote-convert; see passes.hpp for why this order.
#include "converters/common/passes.hpp"

namespace mote::convert {

namespace {

Status run_graph_passes(Graph& graph, const PipelineOptions& options, PassLog& log, bool is_body) {
  // Control-flow bodies first: each is a graph of its own.
  for (auto& body : graph.subgraphs) MOTE_RETURN_IF_ERROR(run_graph_passes(*body, options, log, true));
  MOTE_RETURN_IF_ERROR(widen_f16(graph, log, /*keep_f16_edges=*/!is_body));
  MOTE_RETURN_IF_ERROR(remove_identities(graph, log));
  if (options.optimize) {
    // Before folding, which would turn quantised weights into float ones.
    MOTE_RETURN_IF_ERROR(fold_qdq(graph, log));
    MOTE_RETURN_IF_ERROR(fold_qdq_elementwise(graph, log));
    MOTE_RETURN_IF_ERROR(fold_constants(graph, log, options.fold));
    bool inlined = false, unrolled = false;
    MOTE_RETURN_IF_ERROR(fold_if(graph, log, inlined));
    MOTE_RETURN_IF_ERROR(unroll_loops(graph, log, unrolled));
    if (inlined || unrolled) {
      // Branch and body copies are the graph's ops now: fold what they make known.
      MOTE_RETURN_IF_ERROR(remove_identities(graph, log));
      MOTE_RETURN_IF_ERROR(fold_constants(graph, log, options.fold));
    }
    MOTE_RETURN_IF_ERROR(fold_batchnorm(graph, log));
    MOTE_RETURN_IF_ERROR(fuse_gelu(graph, log));
    MOTE_RETURN_IF_ERROR(fuse_attention(graph, log));
    MOTE_RETURN_IF_ERROR(fuse_matmul_bias(graph, log));
    MOTE_RETURN_IF_ERROR(fuse_residual_add(graph, log));
    MOTE_RETURN_IF_ERROR(fuse_activations(graph, log));
  }
  MOTE_RETURN_IF_ERROR(remove_dead(graph, log));
  // Last, so the written shapes describe the final graph.
  MOTE_RETURN_IF_ERROR(propagate_shapes(graph, log));
  if (options.fp16) MOTE_RETURN_IF_ERROR(convert_weights_to_f16(graph, log));
  return {};
}

}  // namespace

Status run_passes(Graph& graph, const PipelineOptions& options, PassLog& log) {
  return run_graph_passes(graph, options, log, false);
}

}  // namespace mote::convert
