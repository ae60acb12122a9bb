// Reference kernels of Reshape, Flatten, Squeeze, Unsqueeze and Identity: the
// output holds the input's elements in the same order, so each is a copy.
#include "runtime/core/kernel.hpp"
#include "runtime/reference/element_index.hpp"

namespace mote::reference {
namespace {

Status copy_unchanged(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  if (out.dtype() != in.dtype() || out.numel() != in.numel()) {
    return ctx.fail("output " + shape_to_string(out.shape()) + " " + dtype_name(out.dtype()) +
                    " does not hold the input " + shape_to_string(in.shape()) + " " + dtype_name(in.dtype()));
  }
  for (int64_t i = 0; i < in.numel(); ++i) copy_element_at(in, i, out, i);
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Reshape, mote::reference::copy_unchanged);
MOTE_REF_KERNEL(Flatten, mote::reference::copy_unchanged);
MOTE_REF_KERNEL(Squeeze, mote::reference::copy_unchanged);
MOTE_REF_KERNEL(Unsqueeze, mote::reference::copy_unchanged);
MOTE_REF_KERNEL(Identity, mote::reference::copy_unchanged);
