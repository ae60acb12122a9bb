// Reshape, Flatten, Squeeze, Unsqueeze and Identity: the bytes do not move,
// so the kernel is one memcpy (the session may later alias output to input
// and skip it).
#include "runtime/core/kernel.hpp"
#include "runtime/cpu/strided_copy.hpp"

namespace mote::cpu {
namespace {

Status copy_unchanged(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  if (out.dtype() != in.dtype() || out.numel() != in.numel()) {
    return ctx.fail("output " + shape_to_string(out.shape()) + " " + dtype_name(out.dtype()) +
                    " does not hold the input " + shape_to_string(in.shape()) + " " + dtype_name(in.dtype()));
  }
  if (out.raw() != in.raw()) copy_contiguous(in.raw(), out.raw(), in.bytes(), *ctx.pool);
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(Reshape, mote::cpu::copy_unchanged);
MOTE_CPU_KERNEL(Flatten, mote::cpu::copy_unchanged);
MOTE_CPU_KERNEL(Squeeze, mote::cpu::copy_unchanged);
MOTE_CPU_KERNEL(Unsqueeze, mote::cpu::copy_unchanged);
MOTE_CPU_KERNEL(Identity, mote::cpu::copy_unchanged);
