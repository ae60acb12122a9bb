// Reference QLinearMatMul: the direct definition, one output element at a
// time: exact int64 sums of the zero-point-shifted products, requantised in
// double (after the fused activation, if any); batch dimensions broadcast
// through strides as MatMul's.
#include "runtime/ops/qlinear_matmul.hpp"

#include <algorithm>
#include <cmath>

#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/matmul_shape.hpp"
#include "runtime/ops/quantize.hpp"
#include "runtime/reference/fused_activation.hpp"
#include "runtime/reference/requantize.hpp"

namespace mote::reference {
namespace {

Status qlinear_matmul(KernelContext& ctx) {
  if (!fused_activation_known(ctx.op.fused.get())) return ctx.fail("unknown fused activation");
  const Tensor& at = ctx.in(kQmA);
  const Tensor& bt = ctx.in(kQmB);
  auto resolved = resolve_matmul(at.shape(), bt.shape());
  if (!resolved.ok()) return ctx.fail(resolved.status().message());
  const MatMulShape& s = *resolved;
  auto params = read_qlinear_matmul_params(ctx, s.n);
  if (!params.ok()) return ctx.fail(params.status().message());
  const QLinearMatMulParams& p = *params;
  const int32_t* bias = ctx.has_input(kQmBias) ? ctx.in(kQmBias).data<int32_t>() : nullptr;
  Tensor& yt = ctx.out(0);
  for_each_matmul_batch(s, [&](int64_t batch, int64_t a_offset, int64_t b_offset) {
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) {
        int64_t acc = bias ? bias[j] : 0;
        for (int64_t k = 0; k < s.k; ++k) {
          const int64_t a = int8_element(at, (a_offset * s.m + i) * s.k + k) - p.a_zero;
          const int64_t b = int8_element(bt, (b_offset * s.k + k) * s.n + j) - p.b_zero[static_cast<size_t>(j)];
          acc += a * b;
        }
        const double real = static_cast<double>(acc) * p.a_scale * p.b_scale[static_cast<size_t>(j)];
        store_requantized(apply_fused_activation(ctx.op.fused.get(), real), p.y_scale, p.y_zero, yt,
                          (batch * s.m + i) * s.n + j);
      }
    }
  });
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(QLinearMatMul, mote::reference::qlinear_matmul);
