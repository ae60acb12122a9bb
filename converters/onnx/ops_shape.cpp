// Shape ops: Reshape, Flatten, Squeeze, Unsqueeze, Expand, Tile, Shape,
// Size, ConstantOfShape, Range. Older opsets' attribute forms (Reshape's
// 'shape' before 5, Squeeze/Unsqueeze 'axes' before 13) become constant
// inputs, Mote's form.
#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

Status map_reshape(NodeContext& ctx) {
  int data = ctx.input(0);
  int shape = ctx.opset() < 5 ? ctx.constant_i64(ctx.attr_ints("shape"), "shape") : ctx.input(1);
  fb::ReshapeAttrsT a;
  a.allowzero = ctx.attr_int("allowzero", 0) != 0;
  ctx.emit(fb::OpType::Reshape, {data, shape}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_flatten(NodeContext& ctx) {
  fb::AxisAttrsT a;
  a.axis = ctx.attr_int("axis", 1);
  ctx.emit(fb::OpType::Flatten, {ctx.input(0)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_squeeze(NodeContext& ctx) {
  int data = ctx.input(0);
  int axes = ctx.opset() < 13 ? (ctx.has_attr("axes") ? ctx.constant_i64(ctx.attr_ints("axes"), "axes") : -1)
                              : ctx.optional_input(1);
  std::vector<int> inputs = {data};
  if (axes >= 0) inputs.push_back(axes);
  ctx.emit(fb::OpType::Squeeze, inputs, {ctx.output(0)});
  return ctx.status();
}

Status map_unsqueeze(NodeContext& ctx) {
  int data = ctx.input(0);
  int axes = ctx.opset() < 13 ? ctx.constant_i64(ctx.attr_ints("axes"), "axes") : ctx.input(1);
  ctx.emit(fb::OpType::Unsqueeze, {data, axes}, {ctx.output(0)});
  return ctx.status();
}

Status map_shape(NodeContext& ctx) {
  fb::ShapeAttrsT a;
  a.start = ctx.attr_int("start", 0);
  a.end = ctx.attr_int("end", INT64_MAX);
  ctx.emit(fb::OpType::Shape, {ctx.input(0)}, {ctx.output(0)}, a);
  return ctx.status();
}

template <fb::OpType kType>
Status map_plain(NodeContext& ctx) {
  return map_direct(ctx, kType);
}

Status map_tile(NodeContext& ctx) {
  if (ctx.opset() < 6) return ctx.unsupported("Tile before opset 6 (tiles and axis inputs) is not supported");
  return map_direct(ctx, fb::OpType::Tile);
}

Status map_constant_of_shape(NodeContext& ctx) {
  fb::ConstantOfShapeAttrsT a;
  a.dtype = DType::F32;
  a.value = 0.0;
  if (ctx.has_attr("value")) {
    std::optional<Tensor> value = ctx.attr_tensor("value");
    if (!value) return ctx.status();
    if (value->numel() != 1) return ctx.invalid("'value' must hold one element");
    if (value->dtype() == DType::F16) return ctx.unsupported("f16 'value' is not supported");
    a.dtype = value->dtype();
    a.value = value->to_doubles()[0];
  }
  ctx.emit(fb::OpType::ConstantOfShape, {ctx.input(0)}, {ctx.output(0)}, a);
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(Reshape, map_reshape);
MOTE_ONNX_OP(Flatten, map_flatten);
MOTE_ONNX_OP(Squeeze, map_squeeze);
MOTE_ONNX_OP(Unsqueeze, map_unsqueeze);
MOTE_ONNX_OP(Shape, map_shape);
MOTE_ONNX_OP(Tile, map_tile);
MOTE_ONNX_OP(Size, map_plain<fb::OpType::Size>);
MOTE_ONNX_OP(Expand, map_plain<fb::OpType::Expand>);
MOTE_ONNX_OP(Range, map_plain<fb::OpType::Range>);
MOTE_ONNX_OP(ConstantOfShape, map_constant_of_shape);

}  // namespace mote::convert
