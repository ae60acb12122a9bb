// Copying a control-flow body's ops into the enclosing graph: what fold_if
// (a branch taken for certain) and unroll_loops (one copy per iteration) do.
#pragma once

#include <string>
#include <vector>

#include "converters/common/graph.hpp"

namespace mote::convert {

// Appends the ops of `body` to `graph` (in order, names prefixed), reading
// `inputs` (values of `graph`, one per body input) where the body reads its
// inputs; constants are copied in. Returns the values of `graph` holding the
// body's outputs. Bodies of nested control-flow ops are moved into `graph`
// when `move_bodies` (the body is used once), else the caller must have
// checked there are none.
std::vector<int> inline_body(Graph& graph, Graph& body, const std::vector<int>& inputs, const std::string& prefix,
                             bool move_bodies);

}  // namespace mote::convert
