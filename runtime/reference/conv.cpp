// Reference Conv: the direct definition, one output element at a time,
// accumulated in double.
#include "runtime/core/kernel.hpp"
#include "runtime/ops/conv_geometry.hpp"
#include "runtime/reference/conv_loops.hpp"
#include "runtime/reference/float_types.hpp"
#include "runtime/reference/fused_activation.hpp"

namespace mote::reference {
namespace {

template <class T>
Status conv_typed(KernelContext& ctx) {
  if (!fused_activation_known(ctx.op.fused.get())) return ctx.fail("unknown fused activation");
  auto resolved = resolve_conv(attrs<fb::ConvAttrsT>(ctx.op), ctx.in(0).shape(), ctx.in(1).shape());
  if (!resolved.ok()) return ctx.fail(resolved.status().message());
  const ConvGeometry& g = *resolved;

  const T* x = ctx.in(0).data<T>();
  const T* w = ctx.in(1).data<T>();
  const T* bias = ctx.has_input(2) ? ctx.in(2).data<T>() : nullptr;
  const T* residual = ctx.has_input(3) ? ctx.in(3).data<T>() : nullptr;
  T* y = ctx.out(0).data<T>();
  for_each_conv_output(g, [&](int64_t m, int64_t yi, const auto& for_each_tap) {
    double acc = bias ? bias[m] : 0.0;
    for_each_tap([&](int64_t xi, int64_t wi) { acc += double{x[xi]} * double{w[wi]}; });
    if (residual) acc += double{residual[yi]};
    y[yi] = static_cast<T>(apply_fused_activation(ctx.op.fused.get(), acc));
  });
  return {};
}

Status conv(KernelContext& ctx) {
  return run_float_kernel(ctx, [&](auto type) { return conv_typed<decltype(type)>(ctx); });
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Conv, mote::reference::conv);
