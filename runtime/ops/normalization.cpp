// Normalisation layers: BatchNormalization (with training_mode: batch
// statistics and updated running ones), InstanceNormalization and
// LayerNormalization and RMSNormalization, with attributes in NormAttrs, and
// LRN (LrnAttrs).
#include <cmath>
#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"

namespace mote {
namespace {

Status check_epsilon(const ShapeContext& ctx) {
  float epsilon = attrs<fb::NormAttrsT>(ctx.op).epsilon;
  if (!(epsilon >= 0.0f) || std::isinf(epsilon)) {
    return ctx.fail("attribute epsilon must be finite and >= 0, got " + std::to_string(epsilon));
  }
  return {};
}

// X is f32, or f64 on the reference backend (gradient checks); every other
// float input has X's dtype.
Status check_float(const ShapeContext& ctx, size_t input, const char* name) {
  const DType x = ctx.dtype(0);
  if (x != DType::F32 && x != DType::F64) {
    return ctx.fail(std::string("input '") + name + "' must be f32 or f64, got " + dtype_name(ctx.dtype(input)));
  }
  if (ctx.dtype(input) != x) {
    return ctx.fail(std::string("input '") + name + "' has dtype " + dtype_name(ctx.dtype(input)) + " but X has " +
                    dtype_name(x));
  }
  return {};
}

// Per-channel parameters (scale, bias, mean, var) are 1-D with C elements.
Status check_channel_vector(const ShapeContext& ctx, size_t input, const char* name) {
  MOTE_RETURN_IF_ERROR(check_float(ctx, input, name));
  const int64_t channels = ctx.shape(0)[1];
  if (ctx.shape(input) != Shape{channels}) {
    return ctx.fail(std::string("input '") + name + "' must have shape " + std::to_string(channels) +
                    " (the channels of X, " + shape_to_string(ctx.shape(0)) + "), got " +
                    shape_to_string(ctx.shape(input)));
  }
  return {};
}

Status infer_batch_norm(ShapeContext& ctx) {
  const auto& a = attrs<fb::NormAttrsT>(ctx.op);
  if (!a.training_mode && ctx.op.outputs.size() > 1) {
    return ctx.fail("outputs running_mean and running_var exist only with training_mode = 1");
  }
  MOTE_RETURN_IF_ERROR(check_epsilon(ctx));
  if (!std::isfinite(a.momentum)) return ctx.fail("attribute momentum must be finite");
  MOTE_RETURN_IF_ERROR(check_float(ctx, 0, "X"));
  if (ctx.rank(0) < 2)
    return ctx.fail("input 'X' must have rank >= 2 (N x C x ...), got " + shape_to_string(ctx.shape(0)));
  const char* names[] = {"X", "scale", "B", "input_mean", "input_var"};
  for (size_t i = 1; i < 5; ++i) MOTE_RETURN_IF_ERROR(check_channel_vector(ctx, i, names[i]));
  ctx.set_output(0, ctx.dtype(0), ctx.shape(0));
  // running_mean and running_var, when the node asks for them.
  for (size_t i = 1; i < ctx.op.outputs.size() && i < 3; ++i) ctx.set_output(i, ctx.dtype(0), ctx.shape(1));
  return {};
}

Status infer_instance_norm(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_epsilon(ctx));
  MOTE_RETURN_IF_ERROR(check_float(ctx, 0, "input"));
  if (ctx.rank(0) < 3) {
    return ctx.fail("input must have rank >= 3 (N x C x D1 ...), got " + shape_to_string(ctx.shape(0)));
  }
  MOTE_RETURN_IF_ERROR(check_channel_vector(ctx, 1, "scale"));
  MOTE_RETURN_IF_ERROR(check_channel_vector(ctx, 2, "B"));
  ctx.set_output(0, ctx.dtype(0), ctx.shape(0));
  return {};
}

// Scale and B must broadcast (right-aligned, dims equal or 1) to the
// normalised dims X.shape[axis:].
Status check_broadcasts_to(const ShapeContext& ctx, size_t input, const char* name, const Shape& normalized) {
  MOTE_RETURN_IF_ERROR(check_float(ctx, input, name));
  const Shape& s = ctx.shape(input);
  bool ok = s.size() <= normalized.size();
  for (size_t i = 0; ok && i < s.size(); ++i) {
    int64_t target = normalized[normalized.size() - s.size() + i];
    ok = s[i] == target || s[i] == 1;
  }
  if (!ok) {
    return ctx.fail(std::string("input '") + name + "' of shape " + shape_to_string(s) +
                    " does not broadcast to the normalised dims " + shape_to_string(normalized) + " of X");
  }
  return {};
}

// LayerNormalization and RMSNormalization: epsilon, X, the axis and Scale;
// the normalised axis.
Result<int> check_row_norm(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_epsilon(ctx));
  MOTE_RETURN_IF_ERROR(check_float(ctx, 0, "X"));
  if (ctx.rank(0) < 1) return ctx.fail("input 'X' must have rank >= 1, got a scalar");
  auto axis = normalize_axis(attrs<fb::NormAttrsT>(ctx.op).axis, ctx.rank(0));
  if (!axis.ok()) return ctx.fail("attribute axis: " + axis.status().message());
  const Shape& x = ctx.shape(0);
  MOTE_RETURN_IF_ERROR(check_broadcasts_to(ctx, 1, "Scale", Shape(x.begin() + *axis, x.end())));
  return *axis;
}

Status infer_layer_norm(ShapeContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(const int axis, check_row_norm(ctx));
  const Shape& x = ctx.shape(0);
  const Shape normalized(x.begin() + axis, x.end());
  if (ctx.has_input(2)) MOTE_RETURN_IF_ERROR(check_broadcasts_to(ctx, 2, "B", normalized));
  // Mean and InvStdDev keep X's rank with the normalised dims set to 1.
  Shape stats = x;
  for (size_t i = static_cast<size_t>(axis); i < stats.size(); ++i) stats[i] = 1;
  ctx.set_output(0, ctx.dtype(0), x);
  // Mean and InvStdDev, when the node asks for them.
  for (size_t i = 1; i < ctx.op.outputs.size() && i < 3; ++i) ctx.set_output(i, ctx.dtype(0), stats);
  return {};
}

// RMSNormalization(X, Scale): LayerNormalization without centring and
// without B, one output.
Status infer_rms_norm(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_row_norm(ctx).status());
  ctx.set_output(0, ctx.dtype(0), ctx.shape(0));
  return {};
}

// LRN(X [N, C, ...]): X's shape.
Status infer_lrn(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_float(ctx, 0, "X"));
  if (ctx.rank(0) < 3) return ctx.fail("input 'X' must be [N, C, spatial...], got " + shape_to_string(ctx.shape(0)));
  if (attrs<fb::LrnAttrsT>(ctx.op).size < 1) return ctx.fail("size must be at least 1");
  ctx.set_output(0, ctx.dtype(0), ctx.shape(0));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(LRN, {.infer = mote::infer_lrn});
MOTE_OP_DEF(RMSNormalization, {.min_inputs = 2, .max_inputs = 2, .infer = mote::infer_rms_norm});
MOTE_OP_DEF(BatchNormalization, {.min_inputs = 5, .max_inputs = 5, .min_outputs = 1, .max_outputs = 3, .infer = mote::infer_batch_norm});
MOTE_OP_DEF(InstanceNormalization, {.min_inputs = 3, .max_inputs = 3, .infer = mote::infer_instance_norm});
MOTE_OP_DEF(LayerNormalization, {.min_inputs = 2, .max_inputs = 3, .min_outputs = 1, .max_outputs = 3, .infer = mote::infer_layer_norm});
