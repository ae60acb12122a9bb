// Reference QLinearAveragePool and QLinearGlobalAveragePool: every tap of
// every window visited, the sum of the zero-point-shifted codes exact, the
// mean and its requantisation in double (qlinear_pool.hpp); the float
// reference AveragePool's taps (pool_window.hpp).
#include "runtime/ops/qlinear_pool.hpp"

#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/pool.hpp"
#include "runtime/ops/quantize.hpp"
#include "runtime/reference/pool_window.hpp"
#include "runtime/reference/requantize.hpp"

namespace mote::reference {
namespace {

// The requantised mean of `count` taps whose shifted codes sum to `sum`
// (0 for a window of no taps, as AveragePool).
void store_mean(int64_t sum, int64_t count, const QUnaryParams& p, Tensor& y, int64_t i) {
  const double mean = count ? static_cast<double>(sum) / static_cast<double>(count) : 0.0;
  store_requantized(double{p.x.scale} * mean, p.y.scale, p.y.zero, y, i);
}

Status qlinear_average_pool(KernelContext& ctx) {
  auto params = read_qunary_params(ctx.inputs);
  if (!params.ok()) return ctx.fail(params.status().message());
  const Tensor& x = ctx.in(kQUnaryX.data);
  const auto& a = attrs<fb::PoolAttrsT>(ctx.op);
  auto geometry = pool_geometry(a, x.shape());
  if (!geometry.ok()) return ctx.fail(geometry.status().message());
  const PoolGeometry g = geometry->as_3d();
  const int64_t planes = x.dim(0) * x.dim(1);
  const int64_t plane_in = g.in[0] * g.in[1] * g.in[2];
  const int64_t plane_out = g.out[0] * g.out[1] * g.out[2];
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t o = 0; o < plane_out; ++o) {
      int64_t sum = 0;
      const WindowTaps taps =
          visit_window(g, o, [&](int64_t index) { sum += int8_element(x, p * plane_in + index) - params->x.zero; });
      store_mean(sum, a.count_include_pad ? taps.padded : taps.inside, *params, ctx.out(0), p * plane_out + o);
    }
  }
  return {};
}

Status qlinear_global_average_pool(KernelContext& ctx) {
  auto params = read_qunary_params(ctx.inputs);
  if (!params.ok()) return ctx.fail(params.status().message());
  const Tensor& x = ctx.in(kQUnaryX.data);
  const AxisSplit s = split_at_axis(x.shape(), 1);
  for (int64_t p = 0; p < s.outer * s.axis; ++p) {
    int64_t sum = 0;
    for (int64_t i = 0; i < s.inner; ++i) sum += int8_element(x, p * s.inner + i) - params->x.zero;
    store_mean(sum, s.inner, *params, ctx.out(0), p);
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(QLinearAveragePool, mote::reference::qlinear_average_pool);
MOTE_REF_KERNEL(QLinearGlobalAveragePool, mote::reference::qlinear_global_average_pool);
