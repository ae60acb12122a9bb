// Helpers for the passes that match a chain of ops and replace it by one
// (fuse_gelu, fuse_attention): who writes and who reads each value, and
// binary ops with a scalar constant operand.
#pragma once

#include <optional>
#include <vector>

#include "converters/common/graph.hpp"

namespace mote::convert {

// Producer and consumer tables of a graph, taken once before a pass starts
// rewriting. A pass that removes only ops read inside its own pattern keeps
// them right for later matches.
class PatternIndex {
 public:
  explicit PatternIndex(const Graph& g) : g_(g), producers_(g.producers()), consumers_(g.consumers()) {}

  // The live op writing `value` when nothing else reads the value and it is
  // no graph output (so a fusion may drop it); else -1.
  int sole_producer(int value) const;
  // The only live op reading `value` (once), when it is no graph output; else -1.
  int sole_consumer(int value) const;

 private:
  const Graph& g_;
  std::vector<int> producers_;
  std::vector<std::vector<int>> consumers_;
};

// A binary op with one f32 scalar constant input.
struct ScalarOperand {
  int variable = -1;   // the input that is not the constant
  float constant = 0;  // the scalar
};

// `op` when it is a `type` op with exactly one f32 scalar constant input (for
// Div, the divisor), or nullopt. A one-element constant of higher rank than
// the other input would broadcast it, so its rank may be at most that one's.
std::optional<ScalarOperand> scalar_operand(const Graph& g, const fb::OpT& op, fb::OpType type);

}  // namespace mote::convert
