// GatherElements(data, indices) -> indices' shape, out[..i..] =
// data[..indices[..i..]..] along `axis`; ScatterElements(data, indices,
// updates) -> data's shape, data with updates written (or combined by
// `reduction`) at the places indices name. Every dimension of indices other
// than the axis must fit inside data's.
#include "runtime/ops/gather_elements.hpp"

#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/shape_fns.hpp"

namespace mote {

Result<int64_t> element_index(const Tensor& indices, int64_t i, int64_t dim) {
  const int64_t v = indices.dtype() == DType::I64 ? indices.data<int64_t>()[i] : indices.data<int32_t>()[i];
  if (v < -dim || v >= dim) {
    return invalid_argument("'indices' element " + std::to_string(i) + " is " + std::to_string(v) +
                            ", out of range for an axis of " + std::to_string(dim));
  }
  return v < 0 ? v + dim : v;
}

namespace {

Status check_indices(const ShapeContext& ctx, int64_t axis_attr) {
  if (ctx.dtype(1) != DType::I64 && ctx.dtype(1) != DType::I32) {
    return ctx.fail(std::string("'indices' must be i64 or i32, not ") + dtype_name(ctx.dtype(1)));
  }
  if (ctx.rank(1) != ctx.rank(0) || ctx.rank(0) == 0) {
    return ctx.fail("'indices' of shape " + shape_to_string(ctx.shape(1)) + " must have the rank of data " +
                    shape_to_string(ctx.shape(0)) + " (at least 1)");
  }
  auto axis = normalize_axis(axis_attr, ctx.rank(0));
  if (!axis.ok()) return ctx.fail("axis " + std::to_string(axis_attr) + " out of range for rank " + std::to_string(ctx.rank(0)));
  for (int d = 0; d < ctx.rank(0); ++d) {
    if (d != *axis && ctx.shape(1)[static_cast<size_t>(d)] > ctx.shape(0)[static_cast<size_t>(d)]) {
      return ctx.fail("'indices' of shape " + shape_to_string(ctx.shape(1)) + " exceeds data " +
                      shape_to_string(ctx.shape(0)) + " along axis " + std::to_string(d));
    }
  }
  return {};
}

Status infer_gather_elements(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_indices(ctx, attrs<fb::AxisAttrsT>(ctx.op).axis));
  ctx.set_output(0, ctx.dtype(0), ctx.shape(1));
  return {};
}

Status infer_scatter_elements(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_indices(ctx, attrs<fb::ScatterAttrsT>(ctx.op).axis));
  if (ctx.shape(2) != ctx.shape(1) || ctx.dtype(2) != ctx.dtype(0)) {
    return ctx.fail("'updates' (" + std::string(dtype_name(ctx.dtype(2))) + " " + shape_to_string(ctx.shape(2)) +
                    ") must have the shape of indices " + shape_to_string(ctx.shape(1)) + " and the dtype of data (" +
                    dtype_name(ctx.dtype(0)) + ")");
  }
  return shape_fns::same_as_input0(ctx);
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(GatherElements, {.min_inputs = 2, .max_inputs = 2, .infer = mote::infer_gather_elements});
MOTE_OP_DEF(ScatterElements, {.min_inputs = 3, .max_inputs = 3, .infer = mote::infer_scatter_elements});
