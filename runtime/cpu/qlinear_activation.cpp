// Optimised QLinearActivation: the op tabulated, each of X's 256 codes
// requantised through the activation once, in double as the reference does
// (so the two agree exactly), then one table lookup per element. Sigmoid
// or SiLU per element would cost an exp each; the table costs 256.
#include "runtime/ops/qlinear_activation.hpp"

#include <cstdint>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/cpu/qrequantize_scalar.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/reference/fused_activation.hpp"

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
  const bool x_signed = x.dtype() == DType::I8;
  uint8_t table[256];
  for (int byte = 0; byte < 256; ++byte) {
    const int32_t code = x_signed ? static_cast<int8_t>(byte) : byte;
    const double real = double{x_quant->scale} * (code - x_quant->zero);
    table[byte] =
        requantized_byte(reference::apply_fused_activation(ctx.op.fused.get(), real), *y_quant, ctx.out(0).dtype());
  }
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
