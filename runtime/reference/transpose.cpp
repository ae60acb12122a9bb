// Reference Transpose: out[i_0, ..., i_n] = in[j] with j[perm[k]] = i_k.
#include "runtime/core/kernel.hpp"
#include "runtime/ops/transpose.hpp"
#include "runtime/reference/element_index.hpp"

namespace mote::reference {
namespace {

Status transpose(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  auto perm = transpose_perm(ctx.op, in.rank());
  if (!perm.ok()) return ctx.fail(perm.status().message());
  std::vector<int64_t> out_index, in_index(out.shape().size());
  for (int64_t i = 0; i < out.numel(); ++i) {
    unravel_index(i, out.shape(), out_index);
    for (size_t k = 0; k < out_index.size(); ++k) in_index[static_cast<size_t>((*perm)[k])] = out_index[k];
    copy_element_at(in, ravel_index(in_index, in.shape()), out, i);
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Transpose, mote::reference::transpose);
