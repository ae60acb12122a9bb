// Optimised Concat and Split: each input (Concat) or output (Split) is one
// strided copy into or out of a slab of the big tensor; copy_strided merges
// the axes so each becomes [outer rows x contiguous run] of memcpys.
#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/cpu/strided_copy.hpp"

namespace mote::cpu {
namespace {

Status concat(KernelContext& ctx) {
  Tensor& out = ctx.out(0);
  auto axis = normalize_axis(attrs<fb::AxisAttrsT>(ctx.op).axis, out.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  const size_t elem_size = dtype_size(out.dtype());
  const std::vector<int64_t> out_strides = contiguous_strides(out.shape());
  auto* dst = static_cast<char*>(out.raw());
  for (const Tensor* in : ctx.inputs) {
    // The execution plan may have had the producer write it in place
    // (ExecutionPlan::concat_slabs).
    if (in->raw() != dst) {
      StridedCopy copy{in->shape(), contiguous_strides(in->shape()), out_strides};
      copy_strided(in->raw(), dst, elem_size, copy, *ctx.pool);
    }
    dst += in->dim(*axis) * out_strides[static_cast<size_t>(*axis)] * static_cast<int64_t>(elem_size);
  }
  return {};
}

Status split(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  auto axis = normalize_axis(attrs<fb::SplitAttrsT>(ctx.op).axis, in.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  const size_t elem_size = dtype_size(in.dtype());
  const std::vector<int64_t> in_strides = contiguous_strides(in.shape());
  const auto* src = static_cast<const char*>(in.raw());
  for (Tensor* out : ctx.outputs) {
    StridedCopy copy{out->shape(), in_strides, contiguous_strides(out->shape())};
    copy_strided(src, out->raw(), elem_size, copy, *ctx.pool);
    src += out->dim(*axis) * in_strides[static_cast<size_t>(*axis)] * static_cast<int64_t>(elem_size);
  }
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(Concat, mote::cpu::concat);
MOTE_CPU_KERNEL(Split, mote::cpu::split);
