// Reference Conv: the direct definition, one output element at a time,
// accumulated in double.
#include "runtime/core/kernel.hpp"
#include "runtime/ops/conv_geometry.hpp"
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
  const auto& in = g.in_size;
  const auto& out = g.out_size;
  const auto& k = g.kernel;
  const int64_t cg = g.in_channels_per_group();
  const int64_t mg = g.out_channels_per_group();

  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t m = 0; m < g.out_channels; ++m) {
      const int64_t first_channel = (m / mg) * cg;
      for (int64_t od = 0; od < out[0]; ++od) {
        for (int64_t oh = 0; oh < out[1]; ++oh) {
          for (int64_t ow = 0; ow < out[2]; ++ow) {
            double acc = bias ? bias[m] : 0.0;
            for (int64_t c = 0; c < cg; ++c) {
              for (int64_t kd = 0; kd < k[0]; ++kd) {
                int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
                if (id < 0 || id >= in[0]) continue;
                for (int64_t kh = 0; kh < k[1]; ++kh) {
                  int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
                  if (ih < 0 || ih >= in[1]) continue;
                  for (int64_t kw = 0; kw < k[2]; ++kw) {
                    int64_t iw = ow * g.stride[2] - g.pad_begin[2] + kw * g.dilation[2];
                    if (iw < 0 || iw >= in[2]) continue;
                    int64_t xi = (((n * g.in_channels + first_channel + c) * in[0] + id) * in[1] + ih) * in[2] + iw;
                    int64_t wi = (((m * cg + c) * k[0] + kd) * k[1] + kh) * k[2] + kw;
                    acc += double{x[xi]} * double{w[wi]};
                  }
                }
              }
            }
            int64_t yi = (((n * g.out_channels + m) * out[0] + od) * out[1] + oh) * out[2] + ow;
            if (residual) acc += double{residual[yi]};
            y[yi] = static_cast<T>(apply_fused_activation(ctx.op.fused.get(), acc));
          }
        }
      }
    }
  }
  return {};
}

Status conv(KernelContext& ctx) {
  return run_float_kernel(ctx, [&](auto type) { return conv_typed<decltype(type)>(ctx); });
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Conv, mote::reference::conv);
