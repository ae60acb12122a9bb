// Softmax and LogSoftmax, opset-13 semantics: normalise over one axis (not
// over the flattened trailing dims of opset 11). Output = input's dtype/shape.
#include "runtime/ops/softmax.hpp"
#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"

namespace mote {
namespace {

Status infer_softmax(ShapeContext& ctx) {
  if (ctx.dtype(0) != DType::F32 && ctx.dtype(0) != DType::F64) {
    return ctx.fail(std::string("input must be f32 or f64, got ") + dtype_name(ctx.dtype(0)));
  }
  if (ctx.rank(0) < 1) return ctx.fail("input must have rank >= 1, got a scalar");
  auto axis = normalize_axis(softmax_axis_attr(ctx.op), ctx.rank(0));
  if (!axis.ok()) return ctx.fail("attribute axis: " + axis.status().message());
  ctx.set_output(0, ctx.dtype(0), ctx.shape(0));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Softmax, {.min_inputs = 1, .max_inputs = 1, .infer = mote::infer_softmax});
MOTE_OP_DEF(LogSoftmax, {.min_inputs = 1, .max_inputs = 1, .infer = mote::infer_softmax});
