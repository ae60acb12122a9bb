// If, Loop and Scan: their operands are laid out in runtime/core/
// control_flow.hpp, which runs them. The plan never asks these shape
// functions: the output shapes come from a body's run. The converter's
// passes do ask, and leave the outputs' shapes unknown.
#include "runtime/core/op_def.hpp"

namespace mote {
namespace {

Status infer_from_body(ShapeContext&) {
  return Status(StatusCode::kUnsupported, "output shapes come from its body at run time");
}

}  // namespace
}  // namespace mote

// Omitted inputs (-1) are allowed past min_inputs: Loop's trip count and
// condition are both optional.
MOTE_OP_DEF(If, {.min_inputs = 1, .max_inputs = kUnboundedInputs, .min_outputs = 1, .max_outputs = kUnboundedInputs, .infer = infer_from_body});
MOTE_OP_DEF(Loop, {.min_inputs = 0, .max_inputs = kUnboundedInputs, .min_outputs = 1, .max_outputs = kUnboundedInputs, .infer = infer_from_body});
MOTE_OP_DEF(Scan, {.min_inputs = 1, .max_inputs = kUnboundedInputs, .min_outputs = 1, .max_outputs = kUnboundedInputs, .infer = infer_from_body});
