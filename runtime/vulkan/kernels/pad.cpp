// Vulkan kernel of Pad, every mode, as a strided copy with bounds: per axis
// the copy reads the data kept after cropping (negative pads) and the mode
// decides what lies outside it, as pad_source_index does.
#include <algorithm>
#include <cstring>

#include "runtime/ops/pad.hpp"
#include "runtime/vulkan/kernels/copy_strided.hpp"
#include "runtime/vulkan/kernels/known_inputs.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"

namespace mote::vk {
namespace {

CopyMode copy_mode(fb::PadMode mode) {
  switch (mode) {
    case fb::PadMode::Constant: return kConstant;
    case fb::PadMode::Edge: return kEdge;
    case fb::PadMode::Reflect: return kReflect;
    case fb::PadMode::Wrap: return kWrap;
  }
  return kConstant;
}

// The constant's host bytes (f32 bits for F32 data, which the f16 shader
// variant converts); 0 when omitted.
uint64_t constant_bits(const PlanContext& ctx) {
  uint64_t bits = 0;
  if (const Tensor* t = optional_known(ctx, 2)) std::memcpy(&bits, t->raw(), dtype_size(t->dtype()));
  return bits;
}

Status plan_pad(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_known(ctx, {1, 2, 3}));
  const Shape& in = ctx.in(0).shape();
  const fb::PadMode mode = attrs<fb::PadAttrsT>(ctx.op).mode;
  auto amounts = resolve_pads(in, ctx.in(1), optional_known(ctx, 3), mode);
  if (!amounts.ok()) return amounts.status();
  StridedView v;
  v.dims = ctx.out(0).shape();
  v.stride = row_major_strides(in);
  v.mode = copy_mode(mode);
  v.value = constant_bits(ctx);
  for (size_t d = 0; d < in.size(); ++d) {
    const int64_t begin = amounts->begin[d], end = amounts->end[d];
    const int64_t cropped = std::max<int64_t>(-begin, 0);
    v.base += cropped * v.stride[d];
    v.start.push_back(-std::max<int64_t>(begin, 0));
    v.lim.push_back(in[d] - cropped - std::max<int64_t>(-end, 0));
  }
  return add_strided_copy(ctx, std::move(v), ctx.input(0), ctx.output(0), ctx.out(0).dtype());
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(Pad, mote::vk::plan_pad);
