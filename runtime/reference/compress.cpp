// Reference Compress and NonZero; the CPU backend runs them too.
#include <cstring>

#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/reference/element_index.hpp"

namespace mote::reference {
namespace {

Status compress(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  const bool* keep = ctx.in(1).data<bool>();
  const int64_t entries = ctx.in(1).numel();
  const auto& a = attrs<fb::CompressAttrsT>(ctx.op);
  AxisSplit s{1, in.numel(), 1};
  if (a.has_axis) {
    auto axis = normalize_axis(a.axis, in.rank());
    if (!axis.ok()) return ctx.fail(axis.status().message());
    s = split_at_axis(in.shape(), *axis);
  }
  const size_t slice = static_cast<size_t>(s.inner) * dtype_size(in.dtype());
  const char* src = static_cast<const char*>(in.raw());
  char* dst = static_cast<char*>(ctx.out(0).raw());
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t k = 0; k < s.axis && k < entries; ++k) {
      if (!keep[k]) continue;
      std::memcpy(dst, src + static_cast<size_t>(o * s.axis + k) * slice, slice);
      dst += slice;
    }
  }
  return {};
}

Status non_zero(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  const std::vector<double> values = x.to_doubles();
  int64_t* out = ctx.out(0).data<int64_t>();
  const int64_t count = ctx.out(0).dim(1);
  int64_t n = 0;
  std::vector<int64_t> index;
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (values[static_cast<size_t>(i)] == 0.0) continue;
    unravel_index(i, x.shape(), index);
    for (size_t d = 0; d < index.size(); ++d) out[static_cast<int64_t>(d) * count + n] = index[d];
    ++n;
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Compress, mote::reference::compress);
MOTE_REF_KERNEL(NonZero, mote::reference::non_zero);
