// MatMul: numpy matrix product with 1-D operands and broadcast batch
// dimensions (see matmul_shape.hpp).
#include "runtime/ops/float_inputs.hpp"
#include "runtime/ops/matmul_shape.hpp"

namespace mote {
namespace {

Status infer_matmul(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_same_float_dtype(ctx, {"A", "B"}));
  auto s = resolve_matmul(ctx.shape(0), ctx.shape(1));
  if (!s.ok()) return ctx.fail(s.status().message());
  ctx.set_output(0, ctx.dtype(0), s->output);
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(MatMul, {.min_inputs = 2, .max_inputs = 2, .infer = mote::infer_matmul});
