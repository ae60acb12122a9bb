// Vulkan kernel of Resize (nearest and linear, f32; on 8-bit codes,
// resize_codes.comp, gated with the int8 shaders): the per-axis coordinate
// rules run on the host into a table the shader reads, so the GPU samples
// exactly the indices the reference does.
#include "runtime/ops/resize.hpp"

#include <cstring>

#include "runtime/vulkan/kernels/known_inputs.hpp"
#include "runtime/vulkan/kernels/quant_args.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"

namespace mote::vk {
namespace {

struct ResizePush {
  uint32_t n, rank;
  std::array<uint32_t, kMaxPushRank> dims, in_strides, table_offset;
};

// Per axis and output coordinate: lower index, upper index, upper weight
// (float bits). I32 so that f16 storage leaves the weights' bits alone.
Tensor coordinate_table(const fb::ResizeAttrsT& a, const std::vector<ResizeAxis>& axes,
                        std::array<uint32_t, kMaxPushRank>& offsets) {
  int64_t entries = 0;
  for (const ResizeAxis& axis : axes) entries += 3 * axis.out;
  Tensor table = Tensor::zeros(DType::I32, {std::max<int64_t>(entries, 1)});
  int32_t* t = table.data<int32_t>();
  size_t slot = kMaxPushRank - axes.size();
  int64_t at = 0;
  for (const ResizeAxis& axis : axes) {
    offsets[slot++] = static_cast<uint32_t>(at);
    for (int64_t x = 0; x < axis.out; ++x, at += 3) {
      double c = resize_source_coordinate(a.coordinate_transformation_mode, x, axis);
      float weight = 0;
      if (a.mode == fb::ResizeMode::Nearest) {
        t[at] = t[at + 1] = static_cast<int32_t>(resize_nearest_index(a.nearest_mode, c, axis.in));
      } else {
        LinearTap tap = resize_linear_tap(c, axis.in);
        t[at] = static_cast<int32_t>(tap.lower);
        t[at + 1] = static_cast<int32_t>(tap.upper);
        weight = static_cast<float>(tap.upper_weight);
      }
      std::memcpy(&t[at + 2], &weight, 4);
    }
  }
  return table;
}

Status plan_resize(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::F32, DType::I64, DType::U8, DType::I8}));
  const auto& a = attrs<fb::ResizeAttrsT>(ctx.op);
  const bool codes = is_8bit(ctx.in(0).dtype());
  if (ctx.in(0).dtype() != DType::F32 && !(codes && resize_runs_on_codes(a))) {
    return ctx.unsupported("data is not f32 (or 8-bit codes)");
  }
  if (codes) MOTE_RETURN_IF_ERROR(require_int8_shaders(ctx));
  MOTE_RETURN_IF_ERROR(check_resize_supported(a));
  MOTE_RETURN_IF_ERROR(require_known(ctx, {1, 2, 3}));
  const Shape& in = ctx.in(0).shape();
  if (in.size() > kMaxPushRank) return ctx.unsupported("rank above 6");
  if (!fits_u32(ctx.out(0).numel()) || !fits_u32(ctx.in(0).numel())) return ctx.unsupported("more than 2^31 elements");
  auto axes = resize_axes(in, optional_known(ctx, 2), optional_known(ctx, 3));
  if (!axes.ok()) return axes.status();
  ResizePush push{};
  push.n = static_cast<uint32_t>(ctx.out(0).numel());
  push.rank = static_cast<uint32_t>(in.size());
  push.dims = padded_dims(ctx.out(0).shape());
  Shape strides = row_major_strides(in);
  for (size_t d = 0; d < in.size(); ++d) push.in_strides[kMaxPushRank - in.size() + d] = static_cast<uint32_t>(strides[d]);
  TensorArg table = ctx.add_constant(coordinate_table(a, *axes, push.table_offset));
  if (codes) {
    ctx.dispatch_1d(ShaderId::kResizeCodes, {ctx.input(0), table, ctx.output(0)}, push, (ctx.out(0).numel() + 3) / 4)
        .constants = {a.mode == fb::ResizeMode::Linear ? 1 : 0, ctx.in(0).dtype() == DType::I8 ? 1 : 0};
    return {};
  }
  ctx.dispatch_1d(ShaderId::kResize, {ctx.input(0), table, ctx.output(0)}, push, ctx.out(0).numel()).constants = {
      a.mode == fb::ResizeMode::Linear ? 1 : 0};
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(Resize, mote::vk::plan_resize);
