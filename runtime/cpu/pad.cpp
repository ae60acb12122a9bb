// Optimised Pad: the source index of each output coordinate depends on its
// own axis only, so the per-axis tables of pad_source_index drive
// copy_axis_mapped (memcpy of the kept runs, fills for the constant border).
#include "runtime/core/kernel.hpp"
#include "runtime/cpu/axis_map_copy.hpp"
#include "runtime/ops/pad.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote::cpu {
namespace {

Status pad(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  const fb::PadMode mode = attrs<fb::PadAttrsT>(ctx.op).mode;
  auto amounts = resolve_pads(in.shape(), ctx.in(1), optional_input(ctx, 3), mode);
  if (!amounts.ok()) return ctx.fail(amounts.status().message());
  const unsigned char zeros[8] = {};
  const void* constant = zeros;
  if (ctx.has_input(2) && ctx.in(2).numel() == 1) {
    if (ctx.in(2).dtype() != in.dtype()) return ctx.fail("'constant_value' dtype differs from the data's");
    constant = ctx.in(2).raw();
  }
  // An empty output may still have a huge dimension (0 x 2^32): the
  // per-axis tables would be sized by it, for nothing to copy.
  if (out.numel() == 0) return {};
  std::vector<std::vector<int64_t>> maps(static_cast<size_t>(out.rank()));
  for (size_t k = 0; k < maps.size(); ++k) {
    maps[k].resize(static_cast<size_t>(out.shape()[k]));
    for (int64_t o = 0; o < out.shape()[k]; ++o) {
      maps[k][static_cast<size_t>(o)] = pad_source_index(mode, o, in.shape()[k], amounts->begin[k], amounts->end[k]);
    }
  }
  copy_axis_mapped(in.raw(), in.shape(), out.raw(), out.shape(), dtype_size(in.dtype()), maps, constant, *ctx.pool);
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(Pad, mote::cpu::pad);
