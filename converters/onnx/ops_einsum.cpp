// Einsum as Mote ops, so it runs at GEMM speed on every backend. One operand:
// ReduceSum over the letters the output drops, then a Transpose. Two
// operands: each first sums the letters only it has and the output drops;
// then, with the letters in both operands and the output as batch (b), those
// only in A or B and the output as rows (m) or columns (n), and those in both
// but not the output as the contraction (k):
//   A -> Transpose [b, m, k] -> Reshape [B, M, K]
//   B -> Transpose [b, k, n] -> Reshape [B, K, N]
//   MatMul -> Reshape [b..., m..., n...] -> Transpose to the output's order.
// The Reshapes need static shapes; an ellipsis stands for the same dimensions
// in every operand. A letter repeated within one operand (a diagonal), more
// than two operands, or broadcasting between operands are refused by name.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

// One operand's letters; an ellipsis becomes digits '0'.. counted from the
// right, so the same position in two operands gets the same letter.
Result<std::string> expand_ellipsis(const std::string& subscripts, size_t rank) {
  const size_t dots = subscripts.find("...");
  if (dots == std::string::npos) {
    if (subscripts.size() != rank) {
      return invalid_model("subscripts '" + subscripts + "' name " + std::to_string(subscripts.size()) +
                           " dimensions of a rank-" + std::to_string(rank) + " operand");
    }
    return subscripts;
  }
  const size_t explicit_letters = subscripts.size() - 3;
  if (explicit_letters > rank) return invalid_model("subscripts '" + subscripts + "' exceed the operand's rank");
  const size_t hidden = rank - explicit_letters;
  std::string covered;
  for (size_t i = 0; i < hidden; ++i) covered += static_cast<char>('0' + (hidden - 1 - i));
  return subscripts.substr(0, dots) + covered + subscripts.substr(dots + 3);
}

bool has(const std::string& s, char c) { return s.find(c) != std::string::npos; }

// Emits `type` on `inputs` into a new value (or `out` when given).
int emit_to(NodeContext& ctx, fb::OpType type, std::vector<int> inputs, const std::string& name, int out = -1) {
  if (out < 0) out = ctx.temp(name);
  ctx.emit(type, std::move(inputs), {out});
  return out;
}

// ReduceSum of `x` over the letters of `subs` that `keep` does not contain;
// `subs` becomes the remaining letters.
int sum_dropped(NodeContext& ctx, int x, std::string& subs, const std::string& keep, const std::string& name) {
  std::vector<int64_t> axes;
  std::string left;
  for (size_t i = 0; i < subs.size(); ++i) {
    if (has(keep, subs[i])) {
      left += subs[i];
    } else {
      axes.push_back(static_cast<int64_t>(i));
    }
  }
  if (axes.empty()) return x;
  subs = left;
  fb::ReduceAttrsT drop;
  drop.keepdims = false;
  const int out = ctx.temp(name);
  ctx.emit(fb::OpType::ReduceSum, {x, ctx.constant_i64(axes, name + "_axes")}, {out}, drop);
  return out;
}

// Transposes `x` (letters `from`) to the letter order `to`; no op when equal.
int reorder(NodeContext& ctx, int x, const std::string& from, const std::string& to, const std::string& name,
            int out = -1) {
  if (from == to && out < 0) return x;
  fb::TransposeAttrsT t;
  for (char c : to) t.perm.push_back(static_cast<int64_t>(from.find(c)));
  if (out < 0) out = ctx.temp(name);
  ctx.emit(fb::OpType::Transpose, {x}, {out}, t);
  return out;
}

int reshape(NodeContext& ctx, int x, const std::vector<int64_t>& shape, const std::string& name) {
  return emit_to(ctx, fb::OpType::Reshape, {x, ctx.constant_i64(shape, name + "_shape")}, name);
}

Status map_einsum(NodeContext& ctx) {
  std::string equation = ctx.attr_string("equation", "");
  equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
  const size_t arrow = equation.find("->");
  std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> operands;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    operands.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (operands.size() != ctx.input_count()) {
    return ctx.invalid("equation '" + equation + "' names " + std::to_string(operands.size()) + " operands, the node has " +
                       std::to_string(ctx.input_count()));
  }
  if (operands.size() > 2) return ctx.unsupported("Einsum of more than two operands");

  // Static shapes, letters per dimension, each letter's size.
  std::map<char, int64_t> size;
  std::vector<int> values;
  for (size_t k = 0; k < operands.size(); ++k) {
    const int v = ctx.input(k);
    if (v < 0) return ctx.status();
    const Value& value = ctx.value(v);
    if (!value.shape_static()) {
      return ctx.unsupported("Einsum needs static input shapes; operand " + std::to_string(k) + " is " +
                             (value.rank_known ? shape_to_string(value.shape) : std::string("of unknown rank")));
    }
    auto subs = expand_ellipsis(operands[k], value.shape.size());
    if (!subs.ok()) return ctx.invalid(subs.status().message());
    operands[k] = *subs;
    for (size_t i = 0; i < operands[k].size(); ++i) {
      const char c = operands[k][i];
      if (operands[k].find(c) != i) return ctx.unsupported("a letter repeated in one operand (a diagonal): '" + operands[k] + "'");
      auto [it, fresh] = size.emplace(c, value.shape[i]);
      if (!fresh && it->second != value.shape[i]) {
        return ctx.unsupported("letter '" + std::string(1, c) + "' is " + std::to_string(it->second) + " in one operand and " +
                               std::to_string(value.shape[i]) + " in another (broadcasting)");
      }
    }
    values.push_back(v);
  }
  std::string out;
  if (arrow != std::string::npos) {
    out = equation.substr(arrow + 2);
    const size_t dots = out.find("...");
    if (dots != std::string::npos) {
      std::string covered;
      for (const auto& [c, n] : size) {
        if (c >= '0' && c <= '9') covered = c + covered;  // from the left: highest digit first
      }
      out = out.substr(0, dots) + covered + out.substr(dots + 3);
    }
  } else {
    // Implicit output: the ellipsis dimensions, then every letter used once, sorted.
    std::string letters;
    for (const auto& [c, n] : size) {
      int uses = 0;
      for (const std::string& o : operands) uses += has(o, c) ? 1 : 0;
      if (c >= '0' && c <= '9') out = c + out;
      else if (uses == 1) letters += c;
    }
    out += letters;
  }
  for (char c : out) {
    if (!size.count(c)) return ctx.invalid("output letter '" + std::string(1, c) + "' is in no operand");
  }

  if (operands.size() == 1) {
    std::string subs = operands[0];
    const int summed = sum_dropped(ctx, values[0], subs, out, "sum");
    if (subs == out) {
      emit_to(ctx, fb::OpType::Identity, {summed}, "", ctx.output(0));
    } else {
      reorder(ctx, summed, subs, out, "", ctx.output(0));
    }
    return ctx.status();
  }

  std::string a = operands[0], b = operands[1];
  const int a_summed = sum_dropped(ctx, values[0], a, out + b, "a_sum");
  const int b_summed = sum_dropped(ctx, values[1], b, out + a, "b_sum");
  std::string batch, rows, cols, inner;
  for (char c : a) {
    if (has(b, c)) (has(out, c) ? batch : inner) += c;
    else rows += c;
  }
  for (char c : b) {
    if (!has(a, c)) cols += c;
  }
  auto product = [&](const std::string& letters) {
    int64_t n = 1;
    for (char c : letters) n *= size[c];
    return n;
  };
  const int64_t B = product(batch), M = product(rows), N = product(cols), K = product(inner);
  const int a3 = reshape(ctx, reorder(ctx, a_summed, a, batch + rows + inner, "a_t"), {B, M, K}, "a_3d");
  const int b3 = reshape(ctx, reorder(ctx, b_summed, b, batch + inner + cols, "b_t"), {B, K, N}, "b_3d");
  const int product3 = emit_to(ctx, fb::OpType::MatMul, {a3, b3}, "product");
  const std::string result = batch + rows + cols;
  std::vector<int64_t> result_shape;
  for (char c : result) result_shape.push_back(size[c]);
  const int unflat = reshape(ctx, product3, result_shape, "result");
  reorder(ctx, unflat, result, out, "", ctx.output(0));
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(Einsum, map_einsum);

}  // namespace mote::convert
