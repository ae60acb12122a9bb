// Shape functions shared by several ops.
#pragma once

#include "runtime/core/op_def.hpp"

namespace mote::shape_fns {

// Output 0 has input 0's dtype and shape (unary elementwise ops).
Status same_as_input0(ShapeContext& ctx);
// Output 0 has input 0's dtype and the broadcast of all present inputs' shapes.
Status broadcast_inputs(ShapeContext& ctx);
// As broadcast_inputs, with a bool output (comparisons).
Status broadcast_to_bool(ShapeContext& ctx);

}  // namespace mote::shape_fns
