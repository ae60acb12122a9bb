// GatherND(data, indices): indices' last dimension m picks an m-dim
// position in data (after batch_dims shared leading dims); the output is
// indices.shape[:-1] + data.shape[batch_dims + m:]. ScatterND(data,
// indices, updates): data with the slices those positions name replaced by
// (or combined with, per reduction) updates.
#include <algorithm>
#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/shape_fns.hpp"

namespace mote {
namespace {

Status check_index_dtype(const ShapeContext& ctx) {
  if (ctx.dtype(1) != DType::I64) return ctx.fail(std::string("indices must be i64, not ") + dtype_name(ctx.dtype(1)));
  if (ctx.rank(1) < 1) return ctx.fail("indices must have rank >= 1");
  return {};
}

Status infer_gather_nd(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_index_dtype(ctx));
  const int64_t b = attrs<fb::GatherNDAttrsT>(ctx.op).batch_dims;
  const Shape& data = ctx.shape(0);
  const Shape& indices = ctx.shape(1);
  const int64_t m = indices.back();
  if (b < 0 || b >= static_cast<int64_t>(indices.size()) || b + m > static_cast<int64_t>(data.size()) ||
      !std::equal(data.begin(), data.begin() + b, indices.begin())) {
    return ctx.fail("indices " + shape_to_string(indices) + " with batch_dims " + std::to_string(b) +
                    " do not fit data " + shape_to_string(data));
  }
  Shape out(indices.begin(), indices.end() - 1);
  out.insert(out.end(), data.begin() + b + m, data.end());
  ctx.set_output(0, ctx.dtype(0), std::move(out));
  return {};
}

Status infer_scatter_nd(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_index_dtype(ctx));
  const Shape& data = ctx.shape(0);
  const Shape& indices = ctx.shape(1);
  const int64_t m = indices.back();
  Shape want(indices.begin(), indices.end() - 1);
  if (m <= static_cast<int64_t>(data.size())) want.insert(want.end(), data.begin() + m, data.end());
  if (m > static_cast<int64_t>(data.size()) || ctx.shape(2) != want || ctx.dtype(2) != ctx.dtype(0)) {
    return ctx.fail("updates " + shape_to_string(ctx.shape(2)) + " must be " + shape_to_string(want) +
                    " of data's dtype for data " + shape_to_string(data) + " and indices " + shape_to_string(indices));
  }
  return shape_fns::same_as_input0(ctx);
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(GatherND, {.min_inputs = 2, .max_inputs = 2, .infer = mote::infer_gather_nd});
MOTE_OP_DEF(ScatterND, {.min_inputs = 3, .max_inputs = 3, .infer = mote::infer_scatter_nd});
