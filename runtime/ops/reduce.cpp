// Reductions: ReduceMean/Sum/Max/Min/Prod/L2 (axes as optional input 1, the
// opset-18 form) and ArgMax/ArgMin (one axis attribute, i64 indices).
#include "runtime/ops/reduce.hpp"

#include <string>

#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"

namespace mote {

Result<std::vector<bool>> reduce_axes_mask(const fb::ReduceAttrsT& attrs, const Tensor* axes, int rank) {
  std::vector<int64_t> listed;
  if (axes) {
    if (axes->dtype() != DType::I64 && axes->dtype() != DType::I32) {
      return invalid_argument(std::string("input 'axes' must be i64, got ") + dtype_name(axes->dtype()));
    }
    if (axes->rank() > 1)
      return invalid_argument("input 'axes' must be 1-D, got shape " + shape_to_string(axes->shape()));
    listed = axes->to_int64s();
  }
  if (listed.empty()) return std::vector<bool>(static_cast<size_t>(rank), !attrs.noop_with_empty_axes);
  std::vector<bool> mask(static_cast<size_t>(rank), false);
  for (int64_t a : listed) {
    auto axis = normalize_axis(a, rank);
    if (!axis.ok() || rank == 0)
      return invalid_argument("input 'axes': axis " + std::to_string(a) + " out of range for rank " +
                              std::to_string(rank));
    if (mask[static_cast<size_t>(*axis)])
      return invalid_argument("input 'axes' lists axis " + std::to_string(a) + " twice");
    mask[static_cast<size_t>(*axis)] = true;
  }
  return mask;
}

Shape reduced_shape(const Shape& shape, const std::vector<bool>& reduced, bool keepdims) {
  Shape out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!reduced[i]) {
      out.push_back(shape[i]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  return out;
}

bool reduce_supports_dtype(fb::OpType type, DType dtype) {
  switch (dtype) {
    case DType::F32:
    case DType::F64: return true;
    case DType::I32:
    case DType::I64: return type != fb::OpType::ReduceMean && type != fb::OpType::ReduceL2;
    case DType::Bool: return type == fb::OpType::ReduceMax || type == fb::OpType::ReduceMin;
    default: return false;
  }
}

namespace {

bool is_arg_reduce_dtype(DType t) {
  return t == DType::F32 || t == DType::F64 || t == DType::I32 || t == DType::I64;
}

Status check_reduce_dtype(ShapeContext& ctx) {
  if (!reduce_supports_dtype(ctx.op.type, ctx.dtype(0))) {
    return ctx.fail(std::string("input 'data' has unsupported dtype ") + dtype_name(ctx.dtype(0)) +
                    " (f32, f64 for every reduction; i32, i64 for Sum/Max/Min/Prod; bool for Max/Min)");
  }
  return {};
}

Status infer_reduce(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_reduce_dtype(ctx));
  const Tensor* axes = nullptr;
  if (ctx.has_input(1)) {
    axes = ctx.inputs[1].value;
    if (!axes) return ctx.fail("input 'axes' must be known before the op runs");
  }
  const auto& a = attrs<fb::ReduceAttrsT>(ctx.op);
  auto mask = reduce_axes_mask(a, axes, ctx.rank(0));
  if (!mask.ok()) return ctx.fail(mask.status().message());
  ctx.set_output(0, ctx.dtype(0), reduced_shape(ctx.shape(0), *mask, a.keepdims));
  return {};
}

Status infer_arg_reduce(ShapeContext& ctx) {
  if (!is_arg_reduce_dtype(ctx.dtype(0))) {
    return ctx.fail(std::string("input 'data' has unsupported dtype ") + dtype_name(ctx.dtype(0)) +
                    " (f32, f64, i32 or i64)");
  }
  if (ctx.rank(0) < 1) return ctx.fail("input 'data' must have rank >= 1, got a scalar");
  const auto& a = attrs<fb::ArgReduceAttrsT>(ctx.op);
  auto axis = normalize_axis(a.axis, ctx.rank(0));
  if (!axis.ok()) return ctx.fail("attribute axis: " + axis.status().message());
  if (ctx.shape(0)[static_cast<size_t>(*axis)] == 0) {
    return ctx.fail("axis " + std::to_string(a.axis) + " of input 'data' (" + shape_to_string(ctx.shape(0)) +
                    ") is empty: there is no index to return");
  }
  ctx.set_output(0, DType::I64, reduced_shape(ctx.shape(0), single_axis_mask(*axis, ctx.rank(0)), a.keepdims));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(ReduceMean, {.min_inputs = 1, .max_inputs = 2, .value_inputs = 1u << 1, .infer = mote::infer_reduce});
MOTE_OP_DEF(ReduceSum, {.min_inputs = 1, .max_inputs = 2, .value_inputs = 1u << 1, .infer = mote::infer_reduce});
MOTE_OP_DEF(ReduceMax, {.min_inputs = 1, .max_inputs = 2, .value_inputs = 1u << 1, .infer = mote::infer_reduce});
MOTE_OP_DEF(ReduceMin, {.min_inputs = 1, .max_inputs = 2, .value_inputs = 1u << 1, .infer = mote::infer_reduce});
MOTE_OP_DEF(ReduceProd, {.min_inputs = 1, .max_inputs = 2, .value_inputs = 1u << 1, .infer = mote::infer_reduce});
MOTE_OP_DEF(ReduceL2, {.min_inputs = 1, .max_inputs = 2, .value_inputs = 1u << 1, .infer = mote::infer_reduce});
MOTE_OP_DEF(ArgMax, {.min_inputs = 1, .max_inputs = 1, .infer = mote::infer_arg_reduce});
MOTE_OP_DEF(ArgMin, {.min_inputs = 1, .max_inputs = 1, .infer = mote::infer_arg_reduce});
