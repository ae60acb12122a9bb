// Optimised Slice and Gather.
#include <algorithm>

#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/cpu/strided_copy.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/slice_gather.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote::cpu {
namespace {

// A strided copy starting at the window's first element, with each input
// stride scaled by its step (negative steps walk backwards).
Status slice(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  auto slices = resolve_slice(in.shape(), ctx.in(1), ctx.in(2), optional_input(ctx, 3), optional_input(ctx, 4));
  if (!slices.ok()) return ctx.fail(slices.status().message());
  if (out.numel() == 0) return {};
  const size_t elem_size = dtype_size(in.dtype());
  const std::vector<int64_t> in_strides = contiguous_strides(in.shape());
  StridedCopy copy{out.shape(), {}, contiguous_strides(out.shape())};
  int64_t first = 0;
  for (size_t k = 0; k < slices->size(); ++k) {
    first += (*slices)[k].start * in_strides[k];
    copy.src_strides.push_back((*slices)[k].step * in_strides[k]);
  }
  copy_strided(static_cast<const char*>(in.raw()) + first * static_cast<int64_t>(elem_size), out.raw(), elem_size,
               copy, *ctx.pool);
  return {};
}

// Viewed as data [outer, dim, inner] and out [outer, n, inner]: each of the
// outer * n output rows is one contiguous copy of `inner` elements.
Status gather(KernelContext& ctx) {
  const Tensor& data = ctx.in(0);
  Tensor& out = ctx.out(0);
  auto axis = normalize_axis(attrs<fb::AxisAttrsT>(ctx.op).axis, data.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  const int64_t dim = data.dim(*axis);
  auto picked = gather_indices(ctx.in(1), dim);
  if (!picked.ok()) return ctx.fail(picked.status().message());
  const int64_t n = static_cast<int64_t>(picked->size());
  const int64_t outer = shape_numel(Shape(data.shape().begin(), data.shape().begin() + *axis));
  const int64_t inner = shape_numel(Shape(data.shape().begin() + *axis + 1, data.shape().end()));
  const int64_t row_bytes = inner * static_cast<int64_t>(dtype_size(data.dtype()));
  const auto* src = static_cast<const char*>(data.raw());
  auto* dst = static_cast<char*>(out.raw());
  const int64_t grain = std::max<int64_t>(1, kMinBytesPerTask / std::max<int64_t>(row_bytes, 1));
  ctx.pool->parallel_for(outer * n, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t o = r / n;
      const int64_t j = r % n;
      const char* from = src + (o * dim + (*picked)[static_cast<size_t>(j)]) * row_bytes;
      if (row_bytes <= 8) {
        copy_element(dst + r * row_bytes, from, static_cast<size_t>(row_bytes));
      } else {
        std::memcpy(dst + r * row_bytes, from, static_cast<size_t>(row_bytes));
      }
    }
  });
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(Slice, mote::cpu::slice);
MOTE_CPU_KERNEL(Gather, mote::cpu::gather);
