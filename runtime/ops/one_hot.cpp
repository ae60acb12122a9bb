// Ops that write one-hot and identity patterns:
//   OneHot(indices, depth, values [off, on]): indices' shape with a new axis
//     of `depth` (a value input) at `axis`; on where the index (negative
//     counts from depth) matches, off elsewhere.
//   Hardmax(x): 1 at the first maximum of each slice along `axis`, else 0.
//   EyeLike(x): 2-D, x's shape, ones on diagonal k, in EyeLikeAttrs.dtype.
#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/shape_fns.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote {
namespace {

Status infer_one_hot(ShapeContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(const Tensor* depth_value, known_input_value(ctx, 1, "'depth' (input 1)"));
  if (depth_value->numel() != 1) return ctx.fail("depth must hold one value");
  const double depth = depth_value->to_doubles()[0];
  if (!(depth >= 1)) return ctx.fail("depth " + std::to_string(depth) + " must be at least 1");
  if (shape_numel(ctx.shape(2)) != 2) return ctx.fail("values must hold two elements, [off, on]");
  const int64_t axis_attr = attrs<fb::AxisAttrsT>(ctx.op).axis;
  auto axis = normalize_axis(axis_attr, ctx.rank(0) + 1);
  if (!axis.ok()) return ctx.fail("axis " + std::to_string(axis_attr) + " out of range for indices of rank " + std::to_string(ctx.rank(0)));
  Shape out = ctx.shape(0);
  out.insert(out.begin() + *axis, static_cast<int64_t>(depth));
  ctx.set_output(0, ctx.dtype(2), std::move(out));
  return {};
}

Status infer_hardmax(ShapeContext& ctx) {
  if (ctx.dtype(0) != DType::F32 && ctx.dtype(0) != DType::F64) {
    return ctx.fail(std::string("input has dtype ") + dtype_name(ctx.dtype(0)) + "; supported: f32, f64");
  }
  const int64_t axis_attr = attrs<fb::AxisAttrsT>(ctx.op).axis;
  if (!normalize_axis(axis_attr, ctx.rank(0)).ok()) {
    return ctx.fail("axis " + std::to_string(axis_attr) + " out of range for rank " + std::to_string(ctx.rank(0)));
  }
  return shape_fns::same_as_input0(ctx);
}

Status infer_eye_like(ShapeContext& ctx) {
  if (ctx.rank(0) != 2) return ctx.fail("input " + shape_to_string(ctx.shape(0)) + " must be 2-D");
  ctx.set_output(0, attrs<fb::EyeLikeAttrsT>(ctx.op).dtype, ctx.shape(0));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(OneHot, {.min_inputs = 3, .max_inputs = 3, .value_inputs = 0b010u, .infer = mote::infer_one_hot});
MOTE_OP_DEF(Hardmax, {.infer = mote::infer_hardmax});
MOTE_OP_DEF(EyeLike, {.infer = mote::infer_eye_like});
