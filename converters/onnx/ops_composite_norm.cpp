// Normalisations ONNX defines as functions, converted to Mote's ops:
//   LpNormalization(x)  = x / ||x||_p along axis (0 where the norm is 0)
//   MeanVarianceNormalization(x) = (x - mean) / (std + 1e-9) over axes
//   GroupNormalization(x) = InstanceNormalization over [N, groups, rest],
//     then the per-channel scale and bias (opset 21; opset 18's are per
//     group and go into the InstanceNormalization)
#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

int emit1(NodeContext& ctx, fb::OpType type, std::vector<int> inputs, const std::string& name, int out = -1) {
  if (out < 0) out = ctx.temp(name);
  ctx.emit(type, std::move(inputs), {out});
  return out;
}

Status map_lp_normalization(NodeContext& ctx) {
  const int64_t p = ctx.attr_int("p", 2);
  if (p != 1 && p != 2) return ctx.invalid("p must be 1 or 2, got " + std::to_string(p));
  const int x = ctx.input(0);
  fb::ReduceAttrsT keep;
  keep.keepdims = true;
  const int norm = ctx.temp("norm");
  const int axes = ctx.constant_i64({ctx.attr_int("axis", -1)}, "axis");
  if (p == 2) {
    ctx.emit(fb::OpType::ReduceL2, {x, axes}, {norm}, keep);
  } else {
    ctx.emit(fb::OpType::ReduceSum, {emit1(ctx, fb::OpType::Abs, {x}, "abs"), axes}, {norm}, keep);
  }
  const int zero = ctx.scalar(DType::F32, 0.0, "zero");
  const int is_zero = emit1(ctx, fb::OpType::Equal, {norm, zero}, "norm_is_zero");
  const int quotient = emit1(ctx, fb::OpType::Div, {x, norm}, "quotient");
  ctx.emit(fb::OpType::Where, {is_zero, zero, quotient}, {ctx.output(0)});
  return ctx.status();
}

Status map_mean_variance_normalization(NodeContext& ctx) {
  std::vector<int64_t> axes = ctx.attr_ints("axes");
  if (!ctx.has_attr("axes")) axes = {0, 2, 3};
  const int x = ctx.input(0);
  const int axes_value = ctx.constant_i64(axes, "axes");
  fb::ReduceAttrsT keep;
  keep.keepdims = true;
  const int mean = ctx.temp("mean");
  ctx.emit(fb::OpType::ReduceMean, {x, axes_value}, {mean}, keep);
  const int centred = emit1(ctx, fb::OpType::Sub, {x, mean}, "centred");
  const int variance = ctx.temp("variance");
  ctx.emit(fb::OpType::ReduceMean, {emit1(ctx, fb::OpType::Mul, {centred, centred}, "square"), axes_value}, {variance}, keep);
  const int std_dev = emit1(ctx, fb::OpType::Sqrt, {variance}, "std");
  const int denominator = emit1(ctx, fb::OpType::Add, {std_dev, ctx.scalar(DType::F32, 1e-9, "epsilon")}, "denominator");
  ctx.emit(fb::OpType::Div, {centred, denominator}, {ctx.output(0)});
  return ctx.status();
}

Status map_group_normalization(NodeContext& ctx) {
  const int64_t groups = ctx.attr_int("num_groups", 0);
  const auto rank = ctx.input_rank(0);
  if (groups < 1) return ctx.invalid("num_groups must be at least 1");
  if (!rank || *rank < 2) return ctx.unsupported("an input of unknown rank (or rank below 2)");
  const int x = ctx.input(0);
  const int grouped = emit1(ctx, fb::OpType::Reshape, {x, ctx.constant_i64({0, groups, -1}, "grouped_shape")}, "grouped");
  fb::NormAttrsT norm;
  norm.epsilon = ctx.attr_float("epsilon", 1e-5f);
  const bool per_group = ctx.opset() < 21;
  int group_scale, group_bias;
  if (per_group) {
    group_scale = ctx.input(1);
    group_bias = ctx.input(2);
  } else {
    group_scale = ctx.constant(Tensor::from_vector<float>({groups}, std::vector<float>(static_cast<size_t>(groups), 1.0f)), "ones");
    group_bias = ctx.constant(Tensor::from_vector<float>({groups}, std::vector<float>(static_cast<size_t>(groups), 0.0f)), "zeros");
  }
  const int normalised = ctx.temp("normalised");
  ctx.emit(fb::OpType::InstanceNormalization, {grouped, group_scale, group_bias}, {normalised}, norm);
  const int shape = emit1(ctx, fb::OpType::Shape, {x}, "shape");
  if (per_group) {
    ctx.emit(fb::OpType::Reshape, {normalised, shape}, {ctx.output(0)});
    return ctx.status();
  }
  const int restored = emit1(ctx, fb::OpType::Reshape, {normalised, shape}, "restored");
  // Scale and bias [C] broadcast as [C, 1, ..., 1] over the spatial dims.
  std::vector<int64_t> channel_shape(static_cast<size_t>(*rank - 1), 1);
  channel_shape[0] = -1;
  const int to_channels = ctx.constant_i64(channel_shape, "channel_shape");
  const int scale = emit1(ctx, fb::OpType::Reshape, {ctx.input(1), to_channels}, "scale");
  const int bias = emit1(ctx, fb::OpType::Reshape, {ctx.input(2), to_channels}, "bias");
  ctx.emit(fb::OpType::Add, {emit1(ctx, fb::OpType::Mul, {restored, scale}, "scaled"), bias}, {ctx.output(0)});
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(LpNormalization, map_lp_normalization);
MOTE_ONNX_OP(MeanVarianceNormalization, map_mean_variance_normalization);
MOTE_ONNX_OP(GroupNormalization, map_group_normalization);

}  // namespace mote::convert
