// Ops whose output size depends on input values, read at run time:
//   Compress(input, condition): the slices along `axis` (or, without one,
//     the elements of the flattened input) whose condition is true.
//   NonZero(x): i64 [rank, count], the coordinates of x's non-zero elements.
#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote {
namespace {

Status infer_compress(ShapeContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(const Tensor* condition, known_input_value(ctx, 1, "'condition' (input 1)"));
  if (condition->dtype() != DType::Bool || condition->rank() != 1) {
    return ctx.fail("condition must be a 1-D bool tensor, got " + shape_to_string(condition->shape()));
  }
  const auto& a = attrs<fb::CompressAttrsT>(ctx.op);
  Shape out = {shape_numel(ctx.shape(0))};
  size_t axis = 0;
  if (a.has_axis) {
    auto normalized = normalize_axis(a.axis, ctx.rank(0));
    if (!normalized.ok()) return ctx.fail("axis " + std::to_string(a.axis) + " out of range for rank " + std::to_string(ctx.rank(0)));
    out = ctx.shape(0);
    axis = static_cast<size_t>(*normalized);
  }
  if (condition->numel() > out[axis]) {
    return ctx.fail("condition has " + std::to_string(condition->numel()) + " entries for " +
                    std::to_string(out[axis]) + " slices");
  }
  int64_t kept = 0;
  for (int64_t i = 0; i < condition->numel(); ++i) kept += condition->data<bool>()[i];
  out[axis] = kept;
  ctx.set_output(0, ctx.dtype(0), std::move(out));
  return {};
}

Status infer_non_zero(ShapeContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(const Tensor* x, known_input_value(ctx, 0, "'X' (input 0)"));
  int64_t count = 0;
  for (double v : x->to_doubles()) count += v != 0.0;
  ctx.set_output(0, DType::I64, {static_cast<int64_t>(x->rank()), count});
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Compress, {.min_inputs = 2, .max_inputs = 2, .value_inputs = 0b10u, .infer = mote::infer_compress});
MOTE_OP_DEF(NonZero, {.value_inputs = 0b1u, .infer = mote::infer_non_zero});
