// Transpose: permutes the axes.
#include "runtime/ops/transpose.hpp"

#include "runtime/core/op_def.hpp"

namespace mote {

Result<std::vector<int>> transpose_perm(const fb::OpT& op, int rank) {
  const std::vector<int64_t>& given = attrs<fb::TransposeAttrsT>(op).perm;
  std::vector<int> perm(static_cast<size_t>(rank));
  if (given.empty()) {
    for (int i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = rank - 1 - i;
    return perm;
  }
  if (given.size() != perm.size()) {
    return invalid_argument("'perm' has " + std::to_string(given.size()) + " entries for an input of rank " +
                            std::to_string(rank));
  }
  std::vector<bool> seen(perm.size(), false);
  for (size_t i = 0; i < given.size(); ++i) {
    if (given[i] < 0 || given[i] >= rank || seen[static_cast<size_t>(given[i])]) {
      return invalid_argument("'perm' is not a permutation of 0.." + std::to_string(rank - 1) + " (entry " +
                              std::to_string(i) + " is " + std::to_string(given[i]) + ")");
    }
    seen[static_cast<size_t>(given[i])] = true;
    perm[i] = static_cast<int>(given[i]);
  }
  return perm;
}

bool transpose_keeps_order(const std::vector<int>& perm, const Shape& in) {
  int last = -1;
  for (int axis : perm) {
    if (in[static_cast<size_t>(axis)] == 1) continue;
    if (axis < last) return false;
    last = axis;
  }
  return true;
}

namespace {

Status infer_transpose(ShapeContext& ctx) {
  auto perm = transpose_perm(ctx.op, ctx.rank(0));
  if (!perm.ok()) return ctx.fail(perm.status().message());
  Shape out;
  for (int axis : *perm) out.push_back(ctx.shape(0)[static_cast<size_t>(axis)]);
  ctx.set_output(0, ctx.dtype(0), std::move(out));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Transpose, {.min_inputs = 1, .max_inputs = 1, .infer = mote::infer_transpose});
