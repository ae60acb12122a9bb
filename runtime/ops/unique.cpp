// Unique(X) -> Y, indices, inverse_indices, counts: the distinct slices of X
// along an axis (or of its flattened elements), the first index of each,
// every slice's distinct slice, and how often each occurs. Output sizes
// depend on X's values, so the op runs as a dynamic step unless X is known.
#include "runtime/ops/unique.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote {

Result<UniqueGroups> unique_groups(const Tensor& x, const fb::UniqueAttrsT& attrs) {
  UniqueGroups g;
  g.shape = attrs.has_axis ? x.shape() : Shape{x.numel()};
  if (attrs.has_axis) {
    auto axis = normalize_axis(attrs.axis, x.rank());
    if (!axis.ok()) return invalid_argument("axis " + std::to_string(attrs.axis) + " out of range for rank " + std::to_string(x.rank()));
    g.axis = *axis;
  }
  const int64_t n = g.shape.empty() ? 1 : g.shape[static_cast<size_t>(g.axis)];
  int64_t outer = 1, inner = 1;
  for (int a = 0; a < g.axis; ++a) outer *= g.shape[static_cast<size_t>(a)];
  for (size_t a = static_cast<size_t>(g.axis) + 1; a < g.shape.size(); ++a) inner *= g.shape[a];
  // Slices compared element by element in row-major order of the other
  // dimensions; integers as integers, so large i64 values stay distinct.
  const bool integral = x.dtype() != DType::F32 && x.dtype() != DType::F64 && x.dtype() != DType::F16;
  const std::vector<double> reals = integral ? std::vector<double>{} : x.to_doubles();
  const std::vector<int64_t> ints = integral ? x.to_int64s() : std::vector<int64_t>{};
  auto less = [&](int64_t a, int64_t b) {
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const size_t ia = static_cast<size_t>((o * n + a) * inner + i), ib = static_cast<size_t>((o * n + b) * inner + i);
        if (integral ? ints[ia] != ints[ib] : reals[ia] != reals[ib]) return integral ? ints[ia] < ints[ib] : reals[ia] < reals[ib];
      }
    }
    return false;
  };
  // Distinct slices in order of first occurrence.
  std::map<int64_t, int64_t, decltype(less)> id_of(less);  // representative slice -> distinct id
  std::vector<int64_t> id(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    auto [it, fresh] = id_of.emplace(k, static_cast<int64_t>(g.first.size()));
    if (fresh) g.first.push_back(k);
    id[static_cast<size_t>(k)] = it->second;
  }
  std::vector<int64_t> rank_of(g.first.size());
  for (size_t u = 0; u < rank_of.size(); ++u) rank_of[u] = static_cast<int64_t>(u);
  if (attrs.sorted) {
    // The map iterates in ascending order: that order is the output's.
    std::vector<int64_t> sorted_first;
    int64_t r = 0;
    for (const auto& [slice, u] : id_of) {
      rank_of[static_cast<size_t>(u)] = r++;
      sorted_first.push_back(slice);
    }
    g.first = std::move(sorted_first);
  }
  g.counts.assign(g.first.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t out = rank_of[static_cast<size_t>(id[static_cast<size_t>(k)])];
    g.inverse.push_back(out);
    ++g.counts[static_cast<size_t>(out)];
  }
  return g;
}

namespace {

Status infer_unique(ShapeContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(const Tensor* x, known_input_value(ctx, 0, "'X' (input 0)"));
  auto g = unique_groups(*x, attrs<fb::UniqueAttrsT>(ctx.op));
  if (!g.ok()) return ctx.fail(g.status().message());
  const auto distinct = static_cast<int64_t>(g->first.size());
  Shape y = g->shape;
  if (!y.empty()) y[static_cast<size_t>(g->axis)] = distinct;
  ctx.set_output(0, ctx.dtype(0), y);
  ctx.set_output(1, DType::I64, {distinct});
  ctx.set_output(2, DType::I64, {static_cast<int64_t>(g->inverse.size())});
  ctx.set_output(3, DType::I64, {distinct});
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Unique, {.min_inputs = 1, .max_inputs = 1, .min_outputs = 1, .max_outputs = 4, .value_inputs = 0b1u, .infer = mote::infer_unique});
