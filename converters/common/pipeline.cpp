// The fixed pass order of mote-convert; see passes.hpp for why this order.
#include "converters/common/passes.hpp"

namespace mote::convert {

Status run_passes(Graph& graph, const PipelineOptions& options, PassLog& log) {
  MOTE_RETURN_IF_ERROR(widen_f16(graph, log));
  MOTE_RETURN_IF_ERROR(remove_identities(graph, log));
  if (options.optimize) {
    MOTE_RETURN_IF_ERROR(fold_constants(graph, log, options.fold));
    MOTE_RETURN_IF_ERROR(fold_batchnorm(graph, log));
    MOTE_RETURN_IF_ERROR(fuse_activations(graph, log));
  }
  MOTE_RETURN_IF_ERROR(remove_dead(graph, log));
  // Last, so the written shapes describe the final graph.
  MOTE_RETURN_IF_ERROR(propagate_shapes(graph, log));
  if (options.fp16) MOTE_RETURN_IF_ERROR(convert_weights_to_f16(graph, log));
  return {};
}

}  // namespace mote::convert
