// Conv and ConvTranspose: the ONNX attributes map one to one onto ConvAttrs
// (empty lists keep the ONNX defaults, which the runtime resolves against
// the weight shape).
#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

fb::ConvAttrsT conv_attrs(NodeContext& ctx) {
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

Status map_conv(NodeContext& ctx) {
  fb::ConvAttrsT a = conv_attrs(ctx);
  std::vector<int> inputs = {ctx.input(0), ctx.input(1)};
  if (ctx.has_input(2)) inputs.push_back(ctx.input(2));
  ctx.emit(fb::OpType::Conv, inputs, {ctx.output(0)}, std::move(a));
  return ctx.status();
}

Status map_conv_transpose(NodeContext& ctx) {
  fb::ConvAttrsT a = conv_attrs(ctx);
  a.output_padding = ctx.attr_ints("output_padding");
  a.output_shape = ctx.attr_ints("output_shape");
  std::vector<int> inputs = {ctx.input(0), ctx.input(1)};
  if (ctx.has_input(2)) inputs.push_back(ctx.input(2));
  ctx.emit(fb::OpType::ConvTranspose, inputs, {ctx.output(0)}, std::move(a));
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(Conv, map_conv);
MOTE_ONNX_OP(ConvTranspose, map_conv_transpose);

}  // namespace mote::convert
