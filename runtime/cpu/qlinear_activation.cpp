// Optimised QLinearActivation: the op tabulated, each of X's 256 codes
// requantised through the activation once, in double as the reference does
// (reference::code_table, so the two agree exactly), then one table lookup
// per element. Sigmoid
// or SiLU per element would cost an exp each; the table costs 256.
#include "runtime/ops/qlinear_activation.hpp"

#include <array>
#include <cstdint>

#include "runtime/core/kernel.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/reference/requantize.hpp"

namespace mote::cpu {
namespace {

// Elements per parallel task.
constexpr int64_t kGrain = 1 << 16;

Status qlinear_activation(KernelContext& ctx) {
  auto params = read_qunary_params(ctx.inputs);
  if (!params.ok()) return ctx.fail(params.status().message());
  const TensorQuant* x_quant = &params->x;
  const TensorQuant* y_quant = &params->y;
  const Tensor& x = ctx.in(kQUnaryX.data);
  const std::array<uint8_t, 256> table =
      reference::code_table(x.dtype(), *x_quant, ctx.out(0).dtype(), *y_quant, ctx.op.fused.get());
  const auto* in = static_cast<const uint8_t*>(x.raw());
  auto* out = static_cast<uint8_t*>(ctx.out(0).raw());
  ctx.pool->parallel_for(x.numel(), kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = table[in[i]];
  });
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(QLinearActivation, mote::cpu::qlinear_activation);
