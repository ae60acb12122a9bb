// Runs one op of a Graph at conversion time with the runtime's own pieces:
// the op's shape function (runtime/ops) and its reference kernel
// (runtime/reference). Constant folding and shape propagation use these, so
// the converter never re-implements an op.
#pragma once

#include <vector>

#include "converters/common/graph.hpp"
#include "runtime/core/op_def.hpp"

namespace mote::convert {

// Output dtypes and shapes of `op`, or an error when the op has no definition,
// an input's shape is not static, or the shape function refuses the inputs.
// Constant inputs are visible to the shape function as known values.
Result<std::vector<TensorInfo>> infer_op(const Graph& graph, const fb::OpT& op);

// Runs `op` on its inputs' constant data (an input without data is seen with
// its static shape and no contents, which is all Shape and Size read).
// `outputs` are the shapes infer_op returned.
Result<std::vector<Tensor>> evaluate_op(const Graph& graph, const fb::OpT& op, const std::vector<TensorInfo>& outputs);

}  // namespace mote::convert
