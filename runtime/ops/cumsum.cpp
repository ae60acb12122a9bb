// CumSum: running sums along the axis given by input 1, optionally exclusive
// (each output leaves out its own element) and/or reversed (sums run from the end).
#include "runtime/ops/cumsum.hpp"

#include <string>

#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"

namespace mote {

Result<int> cumsum_axis(const Tensor& axis, int rank) {
  if (axis.dtype() != DType::I64 && axis.dtype() != DType::I32) {
    return invalid_argument(std::string("input 'axis' must be i32 or i64, got ") + dtype_name(axis.dtype()));
  }
  if (axis.numel() != 1 || axis.rank() > 1) {
    return invalid_argument("input 'axis' must be a scalar, got shape " + shape_to_string(axis.shape()));
  }
  auto normalized = normalize_axis(axis.to_int64s()[0], rank);
  if (!normalized.ok()) return invalid_argument("input 'axis': " + normalized.status().message());
  return normalized;
}

namespace {

Status infer_cumsum(ShapeContext& ctx) {
  const DType t = ctx.dtype(0);
  if (t != DType::F32 && t != DType::I32 && t != DType::I64) {
    return ctx.fail(std::string("input 'x' has unsupported dtype ") + dtype_name(t) + " (f32, i32 or i64)");
  }
  if (ctx.rank(0) < 1) return ctx.fail("input 'x' must have rank >= 1, got a scalar");
  // The axis does not change the output shape, so it need not be known yet;
  // when it is, check it now rather than at run time.
  if (!ctx.has_input(1)) return ctx.fail("input 'axis' is required");
  if (ctx.inputs[1].value) {
    auto axis = cumsum_axis(*ctx.inputs[1].value, ctx.rank(0));
    if (!axis.ok()) return ctx.fail(axis.status().message());
  } else if (ctx.dtype(1) != DType::I64 && ctx.dtype(1) != DType::I32) {
    return ctx.fail(std::string("input 'axis' must be i32 or i64, got ") + dtype_name(ctx.dtype(1)));
  }
  ctx.set_output(0, t, ctx.shape(0));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(CumSum, {.min_inputs = 2, .max_inputs = 2, .infer = mote::infer_cumsum});
MOTE_OP_DEF(CumProd, {.min_inputs = 2, .max_inputs = 2, .infer = mote::infer_cumsum});
