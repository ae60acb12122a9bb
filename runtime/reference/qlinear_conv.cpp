// Reference QLinearConv: the direct definition, one output element at a time:
// exact int64 sums of the zero-point-shifted products, requantised in double
// (a fused residual added to the real value, then the fused activation).
#include "runtime/ops/qlinear_conv.hpp"

#include <algorithm>
#include <cmath>

#include "runtime/core/kernel.hpp"
#include "runtime/ops/conv_geometry.hpp"
#include "runtime/reference/conv_loops.hpp"
#include "runtime/reference/fused_activation.hpp"
#include "runtime/reference/requantize.hpp"

namespace mote::reference {
namespace {

Status qlinear_conv(KernelContext& ctx) {
  if (!fused_activation_known(ctx.op.fused.get())) return ctx.fail("unknown fused activation");
  const Tensor& xt = ctx.in(kQcX);
  const Tensor& wt = ctx.in(kQcW);
  auto resolved = resolve_conv(attrs<fb::ConvAttrsT>(ctx.op), xt.shape(), wt.shape());
  if (!resolved.ok()) return ctx.fail(resolved.status().message());
  const ConvGeometry& g = *resolved;
  auto params = read_qlinear_conv_params(ctx, g.out_channels);
  if (!params.ok()) return ctx.fail(params.status().message());
  const QLinearConvParams& p = *params;
  const int32_t* bias = ctx.has_input(kQcBias) ? ctx.in(kQcBias).data<int32_t>() : nullptr;
  const Tensor* residual = p.residual ? &ctx.in(kQcResidual) : nullptr;
  Tensor& yt = ctx.out(0);
  for_each_conv_output(g, [&](int64_t m, int64_t yi, const auto& for_each_tap) {
    int64_t acc = bias ? bias[m] : 0;
    for_each_tap([&](int64_t xi, int64_t wi) {
      acc += int64_t{int8_element(xt, xi) - p.x_zero} * (int8_element(wt, wi) - p.w_zero[m]);
    });
    double real = static_cast<double>(acc) * p.x_scale * p.w_scale[m];
    if (residual) real += double{p.r_scale} * (int8_element(*residual, yi) - p.r_zero);
    store_requantized(apply_fused_activation(ctx.op.fused.get(), real), p.y_scale, p.y_zero, yt, yi);
  });
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(QLinearConv, mote::reference::qlinear_conv);
