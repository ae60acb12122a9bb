// Output dtypes of an op from its input dtypes alone. Shape functions give
// dtypes too, but only once every input shape is static; the ONNX front end
// needs dtypes earlier (CastLike's target, the dtype of a constant it creates
// for an older opset's attribute), and .mote files record them for dynamic
// models as well.
#pragma once

#include <optional>

#include "converters/common/graph.hpp"

namespace mote::convert {

// The dtype of output `index` of `op`, or nullopt when an input it depends on
// has an unknown dtype.
std::optional<DType> output_dtype(const Graph& graph, const fb::OpT& op, size_t index);

// Fills the dtype of every output of `op` that output_dtype knows.
void apply_dtype_rules(Graph& graph, const fb::OpT& op);

}  // namespace mote::convert
