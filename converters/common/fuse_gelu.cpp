// GELU fusion: the exact GELU as exporters write it out,
//   0.5 * x * (1 + erf(x / sqrt(2)))
// becomes one Gelu op (one pass over the tensor instead of five: torch's
// nn.GELU and the feed-forward blocks of BERT and ViT exports before opset
// 20). Accepted forms: x / sqrt(2) or x * (1 / sqrt(2)); + 1 on either side;
// the 0.5 applied to x first, to the product last, or to (1 + erf) before
// the product; every Mul and the Add in either operand order. Constants are
// f32 scalars within 1e-5 of their values. Every intermediate must have no
// other reader and not be a graph output, since it no longer exists after.
// The tanh approximation (a Pow or Mul chain around Tanh) is not matched.
#include <cmath>

#include "converters/common/passes.hpp"
#include "converters/common/pattern.hpp"

namespace mote::convert {
namespace {

constexpr const char* kPass = "fuse_gelu";

bool near(float v, double want) { return std::abs(v - want) <= 1e-5 * std::abs(want); }

class GeluMatcher {
 public:
  explicit GeluMatcher(Graph& g) : g_(g), index_(g) {}

  // For the Erf at `erf`: the ops of its GELU, the last one first, or empty.
  std::vector<int> match(int erf) {
    const fb::OpT& e = *g_.ops[static_cast<size_t>(erf)];
    if (e.inputs.size() != 1 || e.outputs.size() != 1) return {};
    // x / sqrt(2), or x * (1 / sqrt(2)).
    const int scale = sole_producer(e.inputs[0]);
    if (scale < 0) return {};
    const fb::OpT& s = op(scale);
    auto scaled = scalar_operand(g_, s, fb::OpType::Div);
    if (!scaled || !near(scaled->constant, std::sqrt(2.0))) {
      scaled = scalar_operand(g_, s, fb::OpType::Mul);
      if (!scaled || !near(scaled->constant, std::sqrt(0.5))) return {};
    }
    x_ = scaled->variable;
    // 1 + erf(...).
    const int add = sole_consumer(e.outputs[0]);
    if (add < 0) return {};
    auto one = scalar_operand(g_, op(add), fb::OpType::Add);
    if (!one || !near(one->constant, 1.0)) return {};
    const int m1 = sole_consumer(op(add).outputs[0]);
    if (m1 < 0 || op(m1).type != fb::OpType::Mul || op(m1).inputs.size() != 2) return {};
    const int sum = op(add).outputs[0];
    // (1 + erf) * 0.5, then * x.
    if (auto half = scalar_operand(g_, op(m1), fb::OpType::Mul); half && half->variable == sum && near(half->constant, 0.5)) {
      const int m2 = sole_consumer(op(m1).outputs[0]);
      if (m2 < 0 || !reads_both(op(m2), x_, op(m1).outputs[0])) return {};
      return {m2, m1, add, erf, scale};
    }
    const int other = op(m1).inputs[0] == sum ? op(m1).inputs[1] : op(m1).inputs[0];
    // x * (1 + erf), then * 0.5.
    if (other == x_ && reads_both(op(m1), x_, sum)) {
      const int m2 = sole_consumer(op(m1).outputs[0]);
      if (m2 < 0) return {};
      auto half = scalar_operand(g_, op(m2), fb::OpType::Mul);
      if (!half || half->variable != op(m1).outputs[0] || !near(half->constant, 0.5)) return {};
      return {m2, m1, add, erf, scale};
    }
    // (x * 0.5) * (1 + erf).
    const int h = sole_producer(other);
    if (h < 0 || !reads_both(op(m1), other, sum)) return {};
    auto half = scalar_operand(g_, op(h), fb::OpType::Mul);
    if (!half || half->variable != x_ || !near(half->constant, 0.5)) return {};
    return {m1, h, add, erf, scale};
  }

  int x() const { return x_; }

 private:
  fb::OpT& op(int index) { return *g_.ops[static_cast<size_t>(index)]; }

  int sole_producer(int value) const { return index_.sole_producer(value); }
  int sole_consumer(int value) const { return index_.sole_consumer(value); }
  static bool reads_both(const fb::OpT& mul, int a, int b) {
    return mul.type == fb::OpType::Mul && mul.inputs.size() == 2 && mul.outputs.size() == 1 &&
           ((mul.inputs[0] == a && mul.inputs[1] == b) || (mul.inputs[0] == b && mul.inputs[1] == a));
  }

  Graph& g_;
  PatternIndex index_;
  int x_ = -1;
};

}  // namespace

Status fuse_gelu(Graph& graph, PassLog& log) {
  GeluMatcher matcher(graph);
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    if (!graph.ops[i] || graph.ops[i]->type != fb::OpType::Erf) continue;
    const std::vector<int> ops = matcher.match(static_cast<int>(i));
    if (ops.empty()) continue;
    // The last op becomes the Gelu: it keeps the output and its place after
    // x's producer, and takes the Erf's name (unique, and what a profile
    // should show rather than a Mul's). The removed ops were read only inside
    // the pattern, so the matcher's producer and consumer tables stay right
    // for later Erfs.
    fb::OpT& gelu = *graph.ops[static_cast<size_t>(ops[0])];
    std::string erf_name = graph.ops[i]->name;
    std::string removed;
    for (size_t k = ops.size(); k-- > 1;) {
      removed += (removed.empty() ? "" : ", ") + Graph::op_label(*graph.ops[static_cast<size_t>(ops[k])]);
      graph.ops[static_cast<size_t>(ops[k])].reset();
    }
    log.count(kPass, "Gelu");
    log.note(kPass, removed + " and " + Graph::op_label(gelu) + " became one Gelu");
    gelu.type = fb::OpType::Gelu;
    gelu.name = std::move(erf_name);
    gelu.inputs = {matcher.x()};
  }
  graph.compact();
  return {};
}

}  // namespace mote::convert
