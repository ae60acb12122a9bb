// Reductions, search and scans: Reduce{Mean,Sum,Max,Min,Prod,L2}, and
// Reduce{L1,SumSquare,LogSum,LogSumExp} built from them, ArgMax,
// ArgMin, TopK, CumSum, CumProd, Det. 'axes' became an input in opset 13 (ReduceSum) and 18
// (the others), TopK's k in opset 10: older attribute forms become constant
// inputs.
#include <limits>
#include <optional>

#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

// Emits Mote reduction `type` of x into `out` over the node's axes (input
// or, before `axes_input_since`, attribute), keeping the reduced dims when
// `keepdims` (default: the node's attribute).
void emit_reduce(NodeContext& ctx, fb::OpType type, int axes_input_since, int x, int out,
                 std::optional<bool> keepdims = std::nullopt) {
  fb::ReduceAttrsT a;
  a.keepdims = keepdims.value_or(ctx.attr_int("keepdims", 1) != 0);
  a.noop_with_empty_axes = ctx.attr_int("noop_with_empty_axes", 0) != 0;
  std::vector<int> inputs = {x};
  int axes = ctx.opset() < axes_input_since
                 ? (ctx.has_attr("axes") ? ctx.constant_i64(ctx.attr_ints("axes"), "axes") : -1)
                 : ctx.optional_input(1);
  if (axes >= 0) inputs.push_back(axes);
  ctx.emit(type, inputs, {out}, a);
}

template <fb::OpType kType>
Status map_reduce(NodeContext& ctx) {
  emit_reduce(ctx, kType, kType == fb::OpType::ReduceSum ? 13 : 18, ctx.input(0), ctx.output(0));
  return ctx.status();
}

// The reductions ONNX adds on top of the sums, as their definitions: L1 is
// the sum of |x|, SumSquare the sum of x * x, LogSum the log of the sum,
// LogSumExp the log of the sum of exp(x - max) plus the max (no overflow
// for large x).
Status map_reduce_l1(NodeContext& ctx) {
  int magnitude = ctx.temp("abs");
  ctx.emit(fb::OpType::Abs, {ctx.input(0)}, {magnitude});
  emit_reduce(ctx, fb::OpType::ReduceSum, 18, magnitude, ctx.output(0));
  return ctx.status();
}

Status map_reduce_sum_square(NodeContext& ctx) {
  int square = ctx.temp("square");
  ctx.emit(fb::OpType::Mul, {ctx.input(0), ctx.input(0)}, {square});
  emit_reduce(ctx, fb::OpType::ReduceSum, 18, square, ctx.output(0));
  return ctx.status();
}

Status map_reduce_log_sum(NodeContext& ctx) {
  int sum = ctx.temp("sum");
  emit_reduce(ctx, fb::OpType::ReduceSum, 18, ctx.input(0), sum);
  ctx.emit(fb::OpType::Log, {sum}, {ctx.output(0)});
  return ctx.status();
}

Status map_reduce_log_sum_exp(NodeContext& ctx) {
  int x = ctx.input(0);
  int kept_max = ctx.temp("max");
  emit_reduce(ctx, fb::OpType::ReduceMax, 18, x, kept_max, /*keepdims=*/true);
  // A row of -inf (or an empty one) has max -inf: shift by 0 there instead,
  // so exp sees -inf - 0 and the result is log(0) = -inf, not NaN.
  DType dtype = ctx.input_dtype(0).value_or(DType::F32);
  int finite = ctx.temp("max_is_finite");
  int magnitude = ctx.temp("abs_max");
  ctx.emit(fb::OpType::Abs, {kept_max}, {magnitude});
  ctx.emit(fb::OpType::Less, {magnitude, ctx.scalar(dtype, std::numeric_limits<double>::infinity(), "inf")}, {finite});
  int shift = ctx.temp("shift");
  ctx.emit(fb::OpType::Where, {finite, kept_max, ctx.scalar(dtype, 0.0, "zero")}, {shift});
  int centred = ctx.temp("centred");
  ctx.emit(fb::OpType::Sub, {x, shift}, {centred});
  int exps = ctx.temp("exp");
  ctx.emit(fb::OpType::Exp, {centred}, {exps});
  int sum = ctx.temp("sum");
  emit_reduce(ctx, fb::OpType::ReduceSum, 18, exps, sum);
  int log_sum = ctx.temp("log_sum");
  ctx.emit(fb::OpType::Log, {sum}, {log_sum});
  int reduced_shift = ctx.temp("reduced_shift");
  emit_reduce(ctx, fb::OpType::ReduceMax, 18, shift, reduced_shift);
  ctx.emit(fb::OpType::Add, {log_sum, reduced_shift}, {ctx.output(0)});
  return ctx.status();
}

// Det reduces each trailing square matrix to its determinant.
Status map_det(NodeContext& ctx) {
  ctx.emit(fb::OpType::Det, {ctx.input(0)}, {ctx.output(0)});
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

template <fb::OpType kType>
Status map_cumulative(NodeContext& ctx) {
  fb::CumSumAttrsT a;
  a.exclusive = ctx.attr_int("exclusive", 0) != 0;
  a.reverse = ctx.attr_int("reverse", 0) != 0;
  ctx.emit(kType, {ctx.input(0), ctx.input(1)}, {ctx.output(0)}, a);
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(ReduceMean, map_reduce<fb::OpType::ReduceMean>);
MOTE_ONNX_OP(ReduceSum, map_reduce<fb::OpType::ReduceSum>);
MOTE_ONNX_OP(ReduceMax, map_reduce<fb::OpType::ReduceMax>);
MOTE_ONNX_OP(ReduceMin, map_reduce<fb::OpType::ReduceMin>);
MOTE_ONNX_OP(ReduceProd, map_reduce<fb::OpType::ReduceProd>);
MOTE_ONNX_OP(ReduceL1, map_reduce_l1);
MOTE_ONNX_OP(ReduceSumSquare, map_reduce_sum_square);
MOTE_ONNX_OP(ReduceLogSum, map_reduce_log_sum);
MOTE_ONNX_OP(ReduceLogSumExp, map_reduce_log_sum_exp);
MOTE_ONNX_OP(ReduceL2, map_reduce<fb::OpType::ReduceL2>);
MOTE_ONNX_OP(Det, map_det);
MOTE_ONNX_OP(ArgMax, map_arg_reduce<fb::OpType::ArgMax>);
MOTE_ONNX_OP(ArgMin, map_arg_reduce<fb::OpType::ArgMin>);
MOTE_ONNX_OP(TopK, map_topk);
MOTE_ONNX_OP(CumSum, map_cumulative<fb::OpType::CumSum>);
MOTE_ONNX_OP(CumProd, map_cumulative<fb::OpType::CumProd>);

}  // namespace mote::convert
