// Vulkan kernels of the normalisation layers: BatchNormalization (inference)
// on batch_norm.comp, LayerNormalization and InstanceNormalization on
// normalize.comp (or its subgroup twin), one workgroup per normalised row.
#include <string>

#include "runtime/core/shape_util.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/vulkan/kernels/rows.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

struct BatchNormPush {
  uint32_t n, channels, inner;
  float epsilon;
};

Status plan_batch_norm(PlanContext& ctx) {
  const auto& a = attrs<fb::NormAttrsT>(ctx.op);
  if (a.training_mode) return ctx.unsupported("training_mode (batch statistics) runs on the CPU");
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::F32}));
  const Tensor& x = ctx.in(0);
  if (x.numel() == 0) return ctx.unsupported("empty tensor");
  if (!fits_u32(x.numel())) return ctx.unsupported("more than 2^31 elements");
  const AxisSplit s = split_at_axis(x.shape(), 1);
  BatchNormPush push{static_cast<uint32_t>(x.numel()), static_cast<uint32_t>(s.axis), static_cast<uint32_t>(s.inner),
                     a.epsilon};
  ctx.dispatch_1d(ShaderId::kBatchNorm,
                  {ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3), ctx.input(4), ctx.output(0)}, push,
                  x.numel());
  return {};
}

// normalize.comp's push block and flags.
struct NormalizePush {
  uint32_t rows = 0, row_size = 0, channels = 0, flags = 0;
  float epsilon = 0.0f;
  uint32_t rank = 0;
  std::array<uint32_t, kMaxPushRank> dims{}, scale_strides{}, bias_strides{};
};
enum NormalizeFlag : uint32_t { kHasBias = 1, kWriteMean = 2, kWriteInvStd = 4, kScaleDense = 8, kBiasDense = 16 };

// Binds x, scale, bias, y, mean, inv_std; absent ones alias a bound tensor
// (their flag is off, so the shader never touches them).
Status dispatch_normalize(PlanContext& ctx, const NormalizePush& push) {
  TensorArg bias = ctx.input_or(2, ctx.input(1));
  TensorArg mean = ctx.outputs.size() > 1 ? ctx.output(1) : ctx.output(0);
  TensorArg inv_std = ctx.outputs.size() > 2 ? ctx.output(2) : ctx.output(0);
  // Three passes; broadcast parameters cost an iteration per dim to locate.
  const int64_t per_element = 3 + 2 * static_cast<int64_t>(push.rank);
  if (short_row_per_invocation(ctx, push.row_size, per_element)) {
    ctx.dispatch_1d(ShaderId::kNormalize, {ctx.input(0), ctx.input(1), bias, ctx.output(0), mean, inv_std}, push,
                    push.rows)
        .constants = {1};
    return {};
  }
  RowLaunch launch = workgroup_per_row(ctx, push.rows, push.row_size);
  if (ceil_div(push.row_size, launch.local[0]) * per_element + 64 > int64_t{ctx.features.max_loop_iterations}) {
    return ctx.unsupported("rows of " + std::to_string(push.row_size) + " elements are too long per invocation");
  }
  ctx.dispatch(with_subgroups(ctx, ShaderId::kNormalize, ShaderId::kNormalizeSubgroup),
               {ctx.input(0), ctx.input(1), bias, ctx.output(0), mean, inv_std}, push, launch.groups, launch.local);
  return {};
}

Status check_rows(const PlanContext& ctx) {
  const Tensor& x = ctx.in(0);
  if (x.numel() == 0) return ctx.unsupported("empty tensor");
  if (!fits_u32(x.numel())) return ctx.unsupported("more than 2^31 elements");
  return {};
}

Status plan_instance_norm(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::F32}));
  MOTE_RETURN_IF_ERROR(check_rows(ctx));
  const AxisSplit s = split_at_axis(ctx.in(0).shape(), 1);
  NormalizePush push;
  push.rows = static_cast<uint32_t>(s.outer * s.axis);
  push.row_size = static_cast<uint32_t>(s.inner);
  push.channels = static_cast<uint32_t>(s.axis);
  push.flags = kHasBias;
  push.epsilon = attrs<fb::NormAttrsT>(ctx.op).epsilon;
  return dispatch_normalize(ctx, push);
}

// Strides of a LayerNorm parameter broadcast over the normalised dims,
// right-aligned in the push arrays; `dense` when it has every dim in full.
std::array<uint32_t, kMaxPushRank> parameter_strides(const Shape& param, const Shape& normalized, bool& dense) {
  dense = shape_numel(param) == shape_numel(normalized);
  return broadcast_strides(param, normalized);
}

Status plan_layer_norm(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::F32}));
  MOTE_RETURN_IF_ERROR(check_rows(ctx));
  const Tensor& x = ctx.in(0);
  const auto& a = attrs<fb::NormAttrsT>(ctx.op);
  auto axis = normalize_axis(a.axis, x.rank());
  if (!axis.ok()) return axis.status();
  const Shape normalized(x.shape().begin() + *axis, x.shape().end());
  if (normalized.size() > kMaxPushRank) return ctx.unsupported("more than 6 normalised dims");
  NormalizePush push;
  push.rows = static_cast<uint32_t>(dims_product(x.shape(), 0, static_cast<size_t>(*axis)));
  push.row_size = static_cast<uint32_t>(shape_numel(normalized));
  push.epsilon = a.epsilon;
  push.rank = static_cast<uint32_t>(normalized.size());
  // broadcast_strides right-aligns into kMaxPushRank slots; the shader walks
  // the last `rank` of them.
  push.dims = padded_dims(normalized);
  bool dense = false;
  push.scale_strides = parameter_strides(ctx.in(1).shape(), normalized, dense);
  if (dense) push.flags |= kScaleDense;
  if (ctx.has_input(2)) {
    push.flags |= kHasBias;
    push.bias_strides = parameter_strides(ctx.in(2).shape(), normalized, dense);
    if (dense) push.flags |= kBiasDense;
  }
  if (ctx.outputs.size() > 1) push.flags |= kWriteMean;
  if (ctx.outputs.size() > 2) push.flags |= kWriteInvStd;
  return dispatch_normalize(ctx, push);
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(BatchNormalization, mote::vk::plan_batch_norm);
MOTE_VK_KERNEL(InstanceNormalization, mote::vk::plan_instance_norm);
MOTE_VK_KERNEL(LayerNormalization, mote::vk::plan_layer_norm);
