// Reference ConvInteger: the direct definition, one output element at a
// time, exact int64 sums of the zero-point-shifted products stored as int32.
#include "runtime/ops/conv_integer.hpp"

#include "runtime/core/kernel.hpp"
#include "runtime/ops/conv_geometry.hpp"
#include "runtime/ops/quantize.hpp"
#include "runtime/reference/conv_loops.hpp"

namespace mote::reference {
namespace {

Status conv_integer(KernelContext& ctx) {
  const Tensor& xt = ctx.in(kCiX);
  const Tensor& wt = ctx.in(kCiW);
  auto resolved = resolve_conv(attrs<fb::ConvAttrsT>(ctx.op), xt.shape(), wt.shape());
  if (!resolved.ok()) return ctx.fail(resolved.status().message());
  const ConvGeometry& g = *resolved;
  const IntegerZeroPoints z = read_integer_zero_points(ctx, g.out_channels);
  int32_t* y = ctx.out(0).data<int32_t>();
  for_each_conv_output(g, [&](int64_t m, int64_t yi, const auto& for_each_tap) {
    int64_t acc = 0;
    for_each_tap([&](int64_t xi, int64_t wi) {
      acc += int64_t{int8_element(xt, xi) - z.a} * (int8_element(wt, wi) - z.b[static_cast<size_t>(m)]);
    });
    y[yi] = static_cast<int32_t>(acc);
  });
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(ConvInteger, mote::reference::conv_integer);
