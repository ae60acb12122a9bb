// QLinearAveragePool and QLinearGlobalAveragePool: qlinear_pool.hpp has the
// equation; AveragePool's window geometry (pool.hpp).
#include "runtime/ops/qlinear_pool.hpp"

#include "runtime/core/attrs.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/pool.hpp"

namespace mote {
namespace {

Status check_operands(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_tensor_quant(ctx, kQUnaryX));
  MOTE_RETURN_IF_ERROR(check_tensor_quant(ctx, kQUnaryY));
  if (ctx.rank(0) < 3)
    return ctx.fail("X must have rank >= 3 (N x C x spatial), got " + shape_to_string(ctx.shape(0)));
  return {};
}

Status infer_qlinear_average_pool(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_operands(ctx));
  auto g = pool_geometry(attrs<fb::PoolAttrsT>(ctx.op), ctx.shape(0));
  if (!g.ok()) {
    Status named = ctx.fail(g.status().message());
    return g.status().code() == StatusCode::kUnsupported ? unsupported(named.message()) : named;
  }
  Shape out = {ctx.shape(0)[0], ctx.shape(0)[1]};
  out.insert(out.end(), g->out.begin(), g->out.end());
  ctx.set_output(0, ctx.dtype(kQUnaryY.zero), out);
  return {};
}

Status infer_qlinear_global_average_pool(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_operands(ctx));
  Shape out = ctx.shape(0);
  for (size_t i = 2; i < out.size(); ++i) out[i] = 1;
  ctx.set_output(0, ctx.dtype(kQUnaryY.zero), out);
  return {};
}

}  // namespace

}  // namespace mote

MOTE_OP_DEF(QLinearAveragePool, {.min_inputs = 5, .max_inputs = 5, .infer = mote::infer_qlinear_average_pool});
MOTE_OP_DEF(QLinearGlobalAveragePool,
            {.min_inputs = 5, .max_inputs = 5, .infer = mote::infer_qlinear_global_average_pool});
