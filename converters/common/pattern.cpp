#include "converters/common/pattern.hpp"

#include "converters/common/passes.hpp"

namespace mote::convert {

int PatternIndex::sole_producer(int value) const {
  if (value < 0 || g_.is_output(value) || consumers_[static_cast<size_t>(value)].size() != 1) return -1;
  const int p = producers_[static_cast<size_t>(value)];
  return p >= 0 && g_.ops[static_cast<size_t>(p)] ? p : -1;
}

int PatternIndex::sole_consumer(int value) const {
  if (value < 0 || g_.is_output(value)) return -1;
  const std::vector<int>& readers = consumers_[static_cast<size_t>(value)];
  return readers.size() == 1 && g_.ops[static_cast<size_t>(readers[0])] ? readers[0] : -1;
}

std::optional<ScalarOperand> scalar_operand(const Graph& g, const fb::OpT& op, fb::OpType type) {
  if (op.type != type || op.inputs.size() != 2 || op.outputs.size() != 1) return std::nullopt;
  for (size_t i = 0; i < 2; ++i) {
    if (type == fb::OpType::Div && i == 0) continue;
    auto c = constant_scalar(g, op, i);
    const int other = op.inputs[1 - i];
    if (!c || other < 0 || g.values[static_cast<size_t>(other)].is_constant()) continue;
    const Value& v = g.values[static_cast<size_t>(other)];
    const size_t constant_rank = g.values[static_cast<size_t>(op.inputs[i])].data->shape().size();
    if (constant_rank > 0 && (!v.rank_known || constant_rank > v.shape.size())) continue;
    return ScalarOperand{other, *c};
  }
  return std::nullopt;
}

}  // namespace mote::convert
