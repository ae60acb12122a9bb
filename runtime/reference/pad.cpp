// Reference Pad: each output element copies the input element that
// pad_source_index picks on every axis, or the constant.
#include <cstring>

#include "runtime/core/kernel.hpp"
#include "runtime/ops/pad.hpp"
#include "runtime/ops/value_inputs.hpp"
#include "runtime/reference/element_index.hpp"

namespace mote::reference {
namespace {

Status pad(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  const fb::PadMode mode = attrs<fb::PadAttrsT>(ctx.op).mode;
  auto amounts = resolve_pads(in.shape(), ctx.in(1), optional_input(ctx, 3), mode);
  if (!amounts.ok()) return ctx.fail(amounts.status().message());
  const bool has_constant = ctx.has_input(2) && ctx.in(2).numel() == 1;
  if (has_constant && ctx.in(2).dtype() != in.dtype()) return ctx.fail("'constant_value' dtype differs from the data's");
  const size_t size = dtype_size(in.dtype());
  std::vector<int64_t> index;
  for (int64_t i = 0; i < out.numel(); ++i) {
    unravel_index(i, out.shape(), index);
    bool inside = true;
    for (size_t k = 0; k < index.size() && inside; ++k) {
      index[k] = pad_source_index(mode, index[k], in.shape()[k], amounts->begin[k], amounts->end[k]);
      inside = index[k] >= 0;
    }
    if (inside) {
      copy_element_at(in, ravel_index(index, in.shape()), out, i);
    } else if (has_constant) {
      copy_element_at(ctx.in(2), 0, out, i);
    } else {
      std::memset(static_cast<char*>(out.raw()) + i * static_cast<int64_t>(size), 0, size);
    }
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Pad, mote::reference::pad);
