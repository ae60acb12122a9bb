// Reference QLinearActivation: each element from the definition, the real
// value and its activation in double (fused_activation.hpp).
#include "runtime/ops/qlinear_activation.hpp"

#include "runtime/core/kernel.hpp"
#include "runtime/ops/quantize.hpp"
#include "runtime/reference/fused_activation.hpp"
#include "runtime/reference/requantize.hpp"

namespace mote::reference {
namespace {

Status qlinear_activation(KernelContext& ctx) {
  auto params = read_qunary_params(ctx.inputs);
  if (!params.ok()) return ctx.fail(params.status().message());
  const TensorQuant* x_quant = &params->x;
  const TensorQuant* y_quant = &params->y;
  const Tensor& x = ctx.in(kQUnaryX.data);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double real = double{x_quant->scale} * (int8_element(x, i) - x_quant->zero);
    store_requantized(apply_fused_activation(ctx.op.fused.get(), real), y_quant->scale, y_quant->zero, ctx.out(0), i);
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(QLinearActivation, mote::reference::qlinear_activation);
