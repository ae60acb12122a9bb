// Reductions, search and scans: Reduce{Mean,Sum,Max,Min,Prod,L2}, ArgMax,
// ArgMin, TopK, CumSum. 'axes' became an input in opset 13 (ReduceSum) and 18
// (the others), TopK's k in opset 10: older attribute forms become constant
// inputs.
#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

template <fb::OpType kType>
Status map_reduce(NodeContext& ctx) {
  const int axes_input_since = kType == fb::OpType::ReduceSum ? 13 : 18;
  fb::ReduceAttrsT a;
  a.keepdims = ctx.attr_int("keepdims", 1) != 0;
  a.noop_with_empty_axes = ctx.attr_int("noop_with_empty_axes", 0) != 0;
  std::vector<int> inputs = {ctx.input(0)};
  int axes = ctx.opset() < axes_input_since
                 ? (ctx.has_attr("axes") ? ctx.constant_i64(ctx.attr_ints("axes"), "axes") : -1)
                 : ctx.optional_input(1);
  if (axes >= 0) inputs.push_back(axes);
  ctx.emit(kType, inputs, {ctx.output(0)}, a);
  return ctx.status();
}

template <fb::OpType kType>
Status map_arg_reduce(NodeContext& ctx) {
  fb::ArgReduceAttrsT a;
  a.axis = ctx.attr_int("axis", 0);
  a.keepdims = ctx.attr_int("keepdims", 1) != 0;
  a.select_last_index = ctx.attr_int("select_last_index", 0) != 0;
  ctx.emit(kType, {ctx.input(0)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_topk(NodeContext& ctx) {
  fb::TopKAttrsT a;
  a.axis = ctx.attr_int("axis", -1);
  a.largest = ctx.attr_int("largest", 1) != 0;
  a.sorted = ctx.attr_int("sorted", 1) != 0;
  int x = ctx.input(0);
  int k = ctx.opset() < 10 ? ctx.constant_i64({ctx.attr_int("k", 0)}, "k") : ctx.input(1);
  ctx.emit(fb::OpType::TopK, {x, k}, {ctx.output(0), ctx.output(1)}, a);
  return ctx.status();
}

Status map_cumsum(NodeContext& ctx) {
  fb::CumSumAttrsT a;
  a.exclusive = ctx.attr_int("exclusive", 0) != 0;
  a.reverse = ctx.attr_int("reverse", 0) != 0;
  ctx.emit(fb::OpType::CumSum, {ctx.input(0), ctx.input(1)}, {ctx.output(0)}, a);
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(ReduceMean, map_reduce<fb::OpType::ReduceMean>);
MOTE_ONNX_OP(ReduceSum, map_reduce<fb::OpType::ReduceSum>);
MOTE_ONNX_OP(ReduceMax, map_reduce<fb::OpType::ReduceMax>);
MOTE_ONNX_OP(ReduceMin, map_reduce<fb::OpType::ReduceMin>);
MOTE_ONNX_OP(ReduceProd, map_reduce<fb::OpType::ReduceProd>);
MOTE_ONNX_OP(ReduceL2, map_reduce<fb::OpType::ReduceL2>);
MOTE_ONNX_OP(ArgMax, map_arg_reduce<fb::OpType::ArgMax>);
MOTE_ONNX_OP(ArgMin, map_arg_reduce<fb::OpType::ArgMin>);
MOTE_ONNX_OP(TopK, map_topk);
MOTE_ONNX_OP(CumSum, map_cumsum);

}  // namespace mote::convert
