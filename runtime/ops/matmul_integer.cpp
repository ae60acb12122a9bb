#include "runtime/ops/matmul_integer.hpp"

#include "runtime/ops/matmul_shape.hpp"

namespace mote {
namespace {

Status infer_matmul_integer(ShapeContext& ctx) {
  auto s = resolve_matmul(ctx.shape(kMiA), ctx.shape(kMiB));
  if (!s.ok()) return ctx.fail(s.status().message());
  MOTE_RETURN_IF_ERROR(check_integer_operands(ctx, {"A", "B", "a_zero_point", "b_zero_point", "column of B"}, s->n));
  ctx.set_output(0, DType::I32, s->output);
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(MatMulInteger, {.min_inputs = 2, .max_inputs = 4, .infer = mote::infer_matmul_integer});
