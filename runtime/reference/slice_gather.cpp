// Reference Slice and Gather: element by element.
#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/slice_gather.hpp"
#include "runtime/ops/value_inputs.hpp"
#include "runtime/reference/element_index.hpp"

namespace mote::reference {
namespace {

// out[i_0, ...] = in[start_0 + i_0 * step_0, ...]
Status slice(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  auto slices = resolve_slice(in.shape(), ctx.in(1), ctx.in(2), optional_input(ctx, 3), optional_input(ctx, 4));
  if (!slices.ok()) return ctx.fail(slices.status().message());
  std::vector<int64_t> index;
  for (int64_t i = 0; i < out.numel(); ++i) {
    unravel_index(i, out.shape(), index);
    for (size_t k = 0; k < index.size(); ++k) index[k] = (*slices)[k].start + index[k] * (*slices)[k].step;
    copy_element_at(in, ravel_index(index, in.shape()), out, i);
  }
  return {};
}

// out[before..., j..., after...] = data[before..., indices[j...], after...]
Status gather(KernelContext& ctx) {
  const Tensor& data = ctx.in(0);
  const Tensor& indices = ctx.in(1);
  Tensor& out = ctx.out(0);
  auto axis = normalize_axis(attrs<fb::AxisAttrsT>(ctx.op).axis, data.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  const size_t a = static_cast<size_t>(*axis);
  auto picked = gather_indices(indices, data.dim(*axis));
  if (!picked.ok()) return ctx.fail(picked.status().message());
  const size_t index_rank = static_cast<size_t>(indices.rank());
  std::vector<int64_t> out_index, in_index;
  for (int64_t i = 0; i < out.numel(); ++i) {
    unravel_index(i, out.shape(), out_index);
    const std::span<const int64_t> which(out_index.data() + a, index_rank);
    in_index.assign(out_index.begin(), out_index.begin() + a);
    in_index.push_back((*picked)[static_cast<size_t>(ravel_index(which, indices.shape()))]);
    in_index.insert(in_index.end(), out_index.begin() + a + index_rank, out_index.end());
    copy_element_at(data, ravel_index(in_index, data.shape()), out, i);
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Slice, mote::reference::slice);
MOTE_REF_KERNEL(Gather, mote::reference::gather);
