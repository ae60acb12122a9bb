// Conv and ConvTranspose: the ONNX attributes map one to one onto ConvAttrs
// (empty lists keep the ONNX defaults, which the runtime resolves against
// the weight shape).
#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

Status map_conv(NodeContext& ctx) {
  fb::ConvAttrsT a = onnx_conv_attrs(ctx);
  std::vector<int> inputs = {ctx.input(0), ctx.input(1)};
  if (ctx.has_input(2)) inputs.push_back(ctx.input(2));
  ctx.emit(fb::OpType::Conv, inputs, {ctx.output(0)}, std::move(a));
  return ctx.status();
}

Status map_conv_transpose(NodeContext& ctx) {
  fb::ConvAttrsT a = onnx_conv_attrs(ctx);
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
