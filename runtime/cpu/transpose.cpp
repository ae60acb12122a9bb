// Optimised Transpose: a strided copy whose source strides are the input's
// permuted. copy_strided collapses axes that stay together and moves the
// innermost swapped pair in blocked 2-D tiles.
#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/cpu/strided_copy.hpp"
#include "runtime/ops/transpose.hpp"

namespace mote::cpu {
namespace {

Status transpose(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  // A Transpose of axes of size 1 may be planned as a view of its input
  // (ExecutionPlan::keeps_input_bytes): its bytes are already in place.
  if (out.raw() == in.raw()) return {};
  auto perm = transpose_perm(ctx.op, in.rank());
  if (!perm.ok()) return ctx.fail(perm.status().message());
  const std::vector<int64_t> in_strides = contiguous_strides(in.shape());
  StridedCopy copy{out.shape(), {}, contiguous_strides(out.shape())};
  for (int axis : *perm) copy.src_strides.push_back(in_strides[static_cast<size_t>(axis)]);
  copy_strided(in.raw(), out.raw(), dtype_size(in.dtype()), copy, *ctx.pool);
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(Transpose, mote::cpu::transpose);
