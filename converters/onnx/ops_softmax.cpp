// Softmax and LogSoftmax. Mote has the opset-13 meaning (normalise over one
// axis). Before opset 13 the input was coerced to 2-D at `axis` (default 1)
// and normalised over everything from `axis` on; that is rewritten as
// Flatten(axis) -> Softmax(axis 1) -> Reshape back to the input's shape,
// unless `axis` is the last one, where both meanings agree.
#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

template <fb::OpType kType>
Status map_softmax(NodeContext& ctx) {
  int x = ctx.input(0);
  fb::AxisAttrsT a;
  if (ctx.opset() >= 13) {
    a.axis = ctx.attr_int("axis", -1);
    ctx.emit(kType, {x}, {ctx.output(0)}, a);
    return ctx.status();
  }
  int64_t axis = ctx.attr_int("axis", 1);
  auto rank = ctx.input_rank(0);
  if (rank && (axis == *rank - 1 || axis == -1)) {
    a.axis = -1;
    ctx.emit(kType, {x}, {ctx.output(0)}, a);
    return ctx.status();
  }
  int shape = ctx.temp("input_shape");
  ctx.emit(fb::OpType::Shape, {x}, {shape});
  int flat = ctx.temp("flattened");
  fb::AxisAttrsT flatten_axis;
  flatten_axis.axis = axis;
  ctx.emit(fb::OpType::Flatten, {x}, {flat}, flatten_axis);
  int normalised = ctx.temp("normalised");
  a.axis = 1;
  ctx.emit(kType, {flat}, {normalised}, a);
  ctx.emit(fb::OpType::Reshape, {normalised, shape}, {ctx.output(0)});
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(Softmax, map_softmax<fb::OpType::Softmax>);
MOTE_ONNX_OP(LogSoftmax, map_softmax<fb::OpType::LogSoftmax>);

}  // namespace mote::convert
