// Element-wise indexing along one axis and triangle masks: GatherElements,
// ScatterElements (and Scatter, its name before opset 11), Trilu.
#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

Status map_gather_elements(NodeContext& ctx) {
  fb::AxisAttrsT a;
  a.axis = ctx.attr_int("axis", 0);
  ctx.emit(fb::OpType::GatherElements, {ctx.input(0), ctx.input(1)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_scatter_elements(NodeContext& ctx) {
  fb::ScatterAttrsT a;
  a.axis = ctx.attr_int("axis", 0);
  const std::string reduction = ctx.attr_string("reduction", "none");
  if (reduction == "none") {
    a.reduction = fb::ScatterReduction::None;
  } else if (reduction == "add") {
    a.reduction = fb::ScatterReduction::Add;
  } else if (reduction == "mul") {
    a.reduction = fb::ScatterReduction::Mul;
  } else if (reduction == "max") {
    a.reduction = fb::ScatterReduction::Max;
  } else if (reduction == "min") {
    a.reduction = fb::ScatterReduction::Min;
  } else {
    return ctx.invalid("unknown reduction '" + reduction + "' (none, add, mul, max or min)");
  }
  ctx.emit(fb::OpType::ScatterElements, {ctx.input(0), ctx.input(1), ctx.input(2)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_trilu(NodeContext& ctx) {
  fb::TriluAttrsT a;
  a.upper = ctx.attr_int("upper", 1) != 0;
  std::vector<int> inputs = {ctx.input(0)};
  if (ctx.input_count() > 1 && ctx.has_input(1)) inputs.push_back(ctx.input(1));
  ctx.emit(fb::OpType::Trilu, inputs, {ctx.output(0)}, a);
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(GatherElements, map_gather_elements);
MOTE_ONNX_OP(ScatterElements, map_scatter_elements);
MOTE_ONNX_OP(Scatter, map_scatter_elements);
MOTE_ONNX_OP(Trilu, map_trilu);

}  // namespace mote::convert
