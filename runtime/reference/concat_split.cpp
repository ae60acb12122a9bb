// Reference Concat and Split: element by element, locating each element's
// input (Concat) or output (Split) by its coordinate along the axis.
#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/reference/element_index.hpp"

namespace mote::reference {
namespace {

Status concat(KernelContext& ctx) {
  Tensor& out = ctx.out(0);
  auto axis = normalize_axis(attrs<fb::AxisAttrsT>(ctx.op).axis, out.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  const size_t a = static_cast<size_t>(*axis);
  std::vector<int64_t> index;
  for (int64_t i = 0; i < out.numel(); ++i) {
    unravel_index(i, out.shape(), index);
    size_t input = 0;
    while (index[a] >= ctx.in(input).dim(*axis)) index[a] -= ctx.in(input++).dim(*axis);
    copy_element_at(ctx.in(input), ravel_index(index, ctx.in(input).shape()), out, i);
  }
  return {};
}

Status split(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  auto axis = normalize_axis(attrs<fb::SplitAttrsT>(ctx.op).axis, in.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  int64_t offset = 0;
  std::vector<int64_t> index;
  for (Tensor* out : ctx.outputs) {
    for (int64_t i = 0; i < out->numel(); ++i) {
      unravel_index(i, out->shape(), index);
      index[static_cast<size_t>(*axis)] += offset;
      copy_element_at(in, ravel_index(index, in.shape()), *out, i);
    }
    offset += out->dim(*axis);
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Concat, mote::reference::concat);
MOTE_REF_KERNEL(Split, mote::reference::split);
