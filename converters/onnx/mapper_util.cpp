#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {

fb::AutoPad parse_auto_pad(NodeContext& ctx) {
  std::string s = ctx.attr_string("auto_pad", "NOTSET");
  if (s == "NOTSET" || s.empty()) return fb::AutoPad::NotSet;
  if (s == "SAME_UPPER") return fb::AutoPad::SameUpper;
  if (s == "SAME_LOWER") return fb::AutoPad::SameLower;
  if (s == "VALID") return fb::AutoPad::Valid;
  ctx.fail(ctx.invalid("unknown auto_pad '" + s + "'"));
  return fb::AutoPad::NotSet;
}

int cast(NodeContext& ctx, int x, DType to, const std::string& name, int out) {
  fb::CastAttrsT a;
  a.to = to;
  if (out < 0) out = ctx.temp(name);
  ctx.emit(fb::OpType::Cast, {x}, {out}, a);
  return out;
}

int binary(NodeContext& ctx, fb::OpType type, int a, int b, const std::string& name, int out) {
  if (out < 0) out = ctx.temp(name);
  ctx.emit(type, {a, b}, {out});
  return out;
}

int dequantize(NodeContext& ctx, int x, int scale, int zero_point, int64_t axis, const std::string& name) {
  fb::QuantizeAttrsT a;
  a.axis = axis;
  const int out = ctx.temp(name);
  std::vector<int> inputs = {x, scale};
  if (zero_point >= 0) inputs.push_back(zero_point);
  ctx.emit(fb::OpType::DequantizeLinear, inputs, {out}, a);
  return out;
}

fb::PoolAttrsT onnx_pool_attrs(NodeContext& ctx) {
  fb::PoolAttrsT a;
  a.kernel_shape = ctx.attr_ints("kernel_shape");
  a.strides = ctx.attr_ints("strides");
  a.pads = ctx.attr_ints("pads");
  a.dilations = ctx.attr_ints("dilations");
  a.auto_pad = parse_auto_pad(ctx);
  a.ceil_mode = ctx.attr_int("ceil_mode", 0) != 0;
  if (a.kernel_shape.empty()) ctx.fail(ctx.invalid("kernel_shape is required"));
  return a;
}

fb::ConvAttrsT onnx_conv_attrs(NodeContext& ctx) {
  fb::ConvAttrsT a;
  a.kernel_shape = ctx.attr_ints("kernel_shape");
  a.strides = ctx.attr_ints("strides");
  a.pads = ctx.attr_ints("pads");
  a.dilations = ctx.attr_ints("dilations");
  a.group = ctx.attr_int("group", 1);
  a.auto_pad = parse_auto_pad(ctx);
  if (a.group < 1) ctx.fail(ctx.invalid("group must be >= 1, got " + std::to_string(a.group)));
  return a;
}

void trim_omitted(std::vector<int>& inputs) {
  while (inputs.size() > 1 && inputs.back() < 0) inputs.pop_back();
}

std::vector<int> direct_inputs(NodeContext& ctx) {
  std::vector<int> inputs;
  for (size_t i = 0; i < ctx.input_count(); ++i) inputs.push_back(ctx.optional_input(i));
  while (!inputs.empty() && inputs.back() < 0) inputs.pop_back();
  return inputs;
}

Status map_direct(NodeContext& ctx, fb::OpType type) {
  ctx.emit(type, direct_inputs(ctx), used_outputs(ctx));
  return ctx.status();
}

namespace {

// Opsets 1-6 broadcast only when asked (broadcast=1), aligning B with A from
// `axis`. Without an axis that is numpy's trailing alignment; with one, B
// gets trailing 1-dims so numpy aligns it the same way.
int legacy_broadcast_operand(NodeContext& ctx, int b) {
  if (ctx.opset() >= 7 || !ctx.attr_int("broadcast", 0) || !ctx.has_attr("axis")) return b;
  auto rank_a = ctx.input_rank(0);
  auto rank_b = ctx.input_rank(1);
  if (!rank_a || !rank_b) {
    ctx.fail(ctx.unsupported("legacy broadcast with 'axis' needs the ranks of both inputs"));
    return b;
  }
  int64_t axis = ctx.attr_int("axis", 0);
  if (axis < 0) axis += *rank_a;
  int64_t trailing = *rank_a - axis - *rank_b;
  if (trailing < 0) {
    ctx.fail(ctx.invalid("broadcast axis " + std::to_string(axis) + " does not fit input ranks"));
    return b;
  }
  if (trailing == 0) return b;
  std::vector<int64_t> axes;
  for (int64_t k = 0; k < trailing; ++k) axes.push_back(*rank_b + k);
  int out = ctx.temp("broadcast_b");
  ctx.emit(fb::OpType::Unsqueeze, {b, ctx.constant_i64(axes, "broadcast_axes")}, {out});
  return out;
}

}  // namespace

Status map_broadcasting_binary(NodeContext& ctx, fb::OpType type) {
  int a = ctx.input(0);
  int b = ctx.input(1);
  if (!ctx.status().ok()) return ctx.status();
  b = legacy_broadcast_operand(ctx, b);
  ctx.emit(type, {a, b}, {ctx.output(0)});
  return ctx.status();
}

std::vector<int> used_outputs(NodeContext& ctx) {
  size_t n = ctx.output_count();
  while (n > 1 && !ctx.has_output(n - 1)) --n;
  std::vector<int> outs;
  for (size_t i = 0; i < n; ++i) outs.push_back(ctx.output(i));
  return outs;
}

}  // namespace mote::convert
