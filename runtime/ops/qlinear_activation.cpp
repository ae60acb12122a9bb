// QLinearActivation: qlinear_activation.hpp has the equation.
#include "runtime/ops/qlinear_activation.hpp"

namespace mote {
namespace {

Status infer_qlinear_activation(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_tensor_quant(ctx, kQUnaryX));
  MOTE_RETURN_IF_ERROR(check_tensor_quant(ctx, kQUnaryY));
  const fb::FusedActivationT* act = ctx.op.fused.get();
  if (act && (act->kind < fb::ActivationKind::MIN || act->kind > fb::ActivationKind::MAX)) {
    return ctx.fail("unknown activation kind " + std::to_string(static_cast<int>(act->kind)));
  }
  ctx.set_output(0, ctx.dtype(kQUnaryY.zero), ctx.shape(kQUnaryX.data));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(QLinearActivation, {.min_inputs = 5, .max_inputs = 5, .infer = mote::infer_qlinear_activation});
