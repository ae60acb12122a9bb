// Reference BitCast, CenterCropPad, ReverseSequence and the window ops
// (runtime/ops/reshuffle.cpp); the CPU backend runs them too.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>

#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/reference/element_index.hpp"

namespace mote::reference {
namespace {

Status bit_cast(KernelContext& ctx) {
  std::memcpy(ctx.out(0).raw(), ctx.in(0).raw(), ctx.in(0).bytes());
  return {};
}

// Output index + offset is the input index along each axis: positive offsets
// crop, negative ones pad (the extra element of an odd difference goes to
// the end either way).
Status center_crop_pad(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  std::vector<int64_t> offset(static_cast<size_t>(in.rank()));
  for (size_t d = 0; d < offset.size(); ++d) {
    const int64_t from = in.shape()[d], to = out.shape()[d];
    offset[d] = from >= to ? (from - to) / 2 : -((to - from) / 2);
  }
  std::memset(out.raw(), 0, out.bytes());
  std::vector<int64_t> index;
  for (int64_t i = 0; i < out.numel(); ++i) {
    unravel_index(i, out.shape(), index);
    bool inside = true;
    for (size_t d = 0; d < index.size(); ++d) {
      index[d] += offset[d];
      inside = inside && index[d] >= 0 && index[d] < in.shape()[d];
    }
    if (inside) copy_element_at(in, ravel_index(index, in.shape()), out, i);
  }
  return {};
}

Status reverse_sequence(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  const auto& a = attrs<fb::SequenceAttrsT>(ctx.op);
  const std::vector<int64_t> lengths = ctx.in(1).to_int64s();
  const auto batch_axis = static_cast<size_t>(a.batch_axis), time_axis = static_cast<size_t>(a.time_axis);
  std::vector<int64_t> index;
  for (int64_t i = 0; i < out.numel(); ++i) {
    unravel_index(i, out.shape(), index);
    const int64_t length = std::min(lengths[static_cast<size_t>(index[batch_axis])], in.shape()[time_axis]);
    if (index[time_axis] < length) index[time_axis] = length - 1 - index[time_axis];
    copy_element_at(in, ravel_index(index, in.shape()), out, i);
  }
  return {};
}

// w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N the size (periodic)
// or the size - 1 (symmetric).
Status window(KernelContext& ctx, double a0, double a1, double a2) {
  const auto& a = attrs<fb::WindowAttrsT>(ctx.op);
  Tensor& out = ctx.out(0);
  const int64_t size = out.dim(0);
  const double n_total = static_cast<double>(a.periodic ? size : size - 1);
  for (int64_t n = 0; n < size; ++n) {
    const double angle = n_total > 0 ? 2 * std::numbers::pi * static_cast<double>(n) / n_total : 0.0;
    const double w = a0 - a1 * std::cos(angle) + a2 * std::cos(2 * angle);
    if (out.dtype() == DType::F64) {
      out.data<double>()[n] = w;
    } else {
      out.data<float>()[n] = static_cast<float>(w);
    }
  }
  return {};
}

Status hann_window(KernelContext& ctx) { return window(ctx, 0.5, 0.5, 0.0); }
Status hamming_window(KernelContext& ctx) { return window(ctx, 25.0 / 46, 21.0 / 46, 0.0); }
Status blackman_window(KernelContext& ctx) { return window(ctx, 0.42, 0.5, 0.08); }

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(BitCast, mote::reference::bit_cast);
MOTE_REF_KERNEL(CenterCropPad, mote::reference::center_crop_pad);
MOTE_REF_KERNEL(ReverseSequence, mote::reference::reverse_sequence);
MOTE_REF_KERNEL(HannWindow, mote::reference::hann_window);
MOTE_REF_KERNEL(HammingWindow, mote::reference::hamming_window);
MOTE_REF_KERNEL(BlackmanWindow, mote::reference::blackman_window);
