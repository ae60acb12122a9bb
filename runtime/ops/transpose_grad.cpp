// Transpose's gradient is the output gradient under the inverse permutation.
#include "runtime/ops/transpose.hpp"
#include "runtime/train/grad_builder.hpp"

namespace mote {
namespace {

Status transpose_grad(GradContext& c) {
  auto perm = transpose_perm(c.op, c.g.rank(c.in(0)));
  if (!perm.ok()) return c.fail(perm.status().message());
  std::vector<int64_t> inverse(perm->size());
  for (size_t i = 0; i < perm->size(); ++i) inverse[static_cast<size_t>((*perm)[i])] = static_cast<int64_t>(i);
  c.set(0, c.g.transpose(c.dy(), inverse));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_GRAD(Transpose, mote::transpose_grad);
