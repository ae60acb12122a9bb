// Indexing, selection and patterns: GatherElements, ScatterElements (and
// Scatter, its name before opset 11), GatherND, ScatterND, Compress,
// NonZero, Trilu, OneHot, Hardmax, EyeLike, NonMaxSuppression, Unique.
#include "converters/onnx/mapper_util.hpp"
#include "converters/onnx/tensor_proto.hpp"

namespace mote::convert {
namespace {

Status map_gather_elements(NodeContext& ctx) {
  fb::AxisAttrsT a;
  a.axis = ctx.attr_int("axis", 0);
  ctx.emit(fb::OpType::GatherElements, {ctx.input(0), ctx.input(1)}, {ctx.output(0)}, a);
  return ctx.status();
}

Result<fb::ScatterReduction> scatter_reduction(NodeContext& ctx) {
  const std::string reduction = ctx.attr_string("reduction", "none");
  if (reduction == "none") return fb::ScatterReduction::None;
  if (reduction == "add") return fb::ScatterReduction::Add;
  if (reduction == "mul") return fb::ScatterReduction::Mul;
  if (reduction == "max") return fb::ScatterReduction::Max;
  if (reduction == "min") return fb::ScatterReduction::Min;
  return ctx.invalid("unknown reduction '" + reduction + "' (none, add, mul, max or min)");
}

Status map_scatter_elements(NodeContext& ctx) {
  fb::ScatterAttrsT a;
  a.axis = ctx.attr_int("axis", 0);
  MOTE_ASSIGN_OR_RETURN(a.reduction, scatter_reduction(ctx));
  ctx.emit(fb::OpType::ScatterElements, {ctx.input(0), ctx.input(1), ctx.input(2)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_scatter_nd(NodeContext& ctx) {
  fb::ScatterAttrsT a;
  MOTE_ASSIGN_OR_RETURN(a.reduction, scatter_reduction(ctx));
  ctx.emit(fb::OpType::ScatterND, {ctx.input(0), ctx.input(1), ctx.input(2)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_gather_nd(NodeContext& ctx) {
  fb::GatherNDAttrsT a;
  a.batch_dims = ctx.attr_int("batch_dims", 0);
  ctx.emit(fb::OpType::GatherND, {ctx.input(0), ctx.input(1)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_compress(NodeContext& ctx) {
  fb::CompressAttrsT a;
  a.has_axis = ctx.has_attr("axis");
  a.axis = ctx.attr_int("axis", 0);
  ctx.emit(fb::OpType::Compress, {ctx.input(0), ctx.input(1)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_one_hot(NodeContext& ctx) {
  fb::AxisAttrsT a;
  a.axis = ctx.attr_int("axis", -1);
  ctx.emit(fb::OpType::OneHot, {ctx.input(0), ctx.input(1), ctx.input(2)}, {ctx.output(0)}, a);
  return ctx.status();
}

// Before opset 13 Hardmax coerced its input to 2-D at `axis`; that agrees
// with the per-axis meaning only on the last axis.
Status map_hardmax(NodeContext& ctx) {
  fb::AxisAttrsT a;
  a.axis = ctx.attr_int("axis", ctx.opset() >= 13 ? -1 : 1);
  auto rank = ctx.input_rank(0);
  if (ctx.opset() < 13 && !(a.axis == -1 || (rank && a.axis == *rank - 1))) {
    return ctx.unsupported("opset " + std::to_string(ctx.opset()) + " Hardmax over a 2-D coercion at axis " +
                           std::to_string(a.axis) + " (only the last axis)");
  }
  ctx.emit(fb::OpType::Hardmax, {ctx.input(0)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_eye_like(NodeContext& ctx) {
  fb::EyeLikeAttrsT a;
  a.k = ctx.attr_int("k", 0);
  a.dtype = ctx.input_dtype(0).value_or(DType::F32);
  if (ctx.has_attr("dtype")) {
    auto dtype = dtype_from_onnx(static_cast<int32_t>(ctx.attr_int("dtype", 1)));
    if (!dtype.ok()) return ctx.unsupported(dtype.status().message());
    a.dtype = *dtype;
  }
  ctx.emit(fb::OpType::EyeLike, {ctx.input(0)}, {ctx.output(0)}, a);
  return ctx.status();
}

template <fb::OpType kType>
Status map_unary_op(NodeContext& ctx) {
  ctx.emit(kType, {ctx.input(0)}, {ctx.output(0)});
  return ctx.status();
}

Status map_trilu(NodeContext& ctx) {
  fb::TriluAttrsT a;
  a.upper = ctx.attr_int("upper", 1) != 0;
  return map_direct(ctx, fb::OpType::Trilu, a);
}

Status map_nms(NodeContext& ctx) {
  fb::NmsAttrsT a;
  a.center_point_box = ctx.attr_int("center_point_box", 0) != 0;
  return map_direct(ctx, fb::OpType::NonMaxSuppression, a);
}

Status map_unique(NodeContext& ctx) {
  fb::UniqueAttrsT a;
  a.has_axis = ctx.has_attr("axis");
  a.axis = ctx.attr_int("axis", 0);
  a.sorted = ctx.attr_int("sorted", 1) != 0;
  return map_direct(ctx, fb::OpType::Unique, a);
}

}  // namespace

MOTE_ONNX_OP(NonMaxSuppression, map_nms);
MOTE_ONNX_OP(GatherElements, map_gather_elements);
MOTE_ONNX_OP(ScatterElements, map_scatter_elements);
MOTE_ONNX_OP(Scatter, map_scatter_elements);
MOTE_ONNX_OP(ScatterND, map_scatter_nd);
MOTE_ONNX_OP(GatherND, map_gather_nd);
MOTE_ONNX_OP(Compress, map_compress);
MOTE_ONNX_OP(Unique, map_unique);
MOTE_ONNX_OP(NonZero, map_unary_op<fb::OpType::NonZero>);
MOTE_ONNX_OP(OneHot, map_one_hot);
MOTE_ONNX_OP(Hardmax, map_hardmax);
MOTE_ONNX_OP(EyeLike, map_eye_like);
MOTE_ONNX_OP(Trilu, map_trilu);

}  // namespace mote::convert
