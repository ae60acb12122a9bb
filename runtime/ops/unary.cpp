// Unary elementwise ops: one input, one output of the same dtype and shape.
#include "runtime/ops/shape_fns.hpp"

MOTE_OP_DEF(Relu, {.infer = mote::shape_fns::same_as_input0});
