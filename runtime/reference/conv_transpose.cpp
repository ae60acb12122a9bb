// Reference ConvTranspose: every input element scattered through the kernel
// into the output (the adjoint of Conv), accumulated in double.
#include <algorithm>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/ops/conv_geometry.hpp"
#include "runtime/reference/float_types.hpp"
#include "runtime/reference/fused_activation.hpp"

namespace mote::reference {
namespace {

template <class T>
Status conv_transpose_typed(KernelContext& ctx) {
  if (!fused_activation_known(ctx.op.fused.get())) return ctx.fail("unknown fused activation");
  auto resolved = resolve_conv_transpose(attrs<fb::ConvAttrsT>(ctx.op), ctx.in(0).shape(), ctx.in(1).shape());
  if (!resolved.ok()) return ctx.fail(resolved.status().message());
  const ConvGeometry& g = *resolved;

  const T* x = ctx.in(0).data<T>();
  const T* w = ctx.in(1).data<T>();
  const T* bias = ctx.has_input(2) ? ctx.in(2).data<T>() : nullptr;
  const auto& in = g.in_size;
  const auto& out = g.out_size;
  const auto& k = g.kernel;
  const int64_t cg = g.in_channels_per_group();
  const int64_t mg = g.out_channels_per_group();

  std::vector<double> acc(static_cast<size_t>(ctx.out(0).numel()), 0.0);
  const int64_t plane = g.out_pixels();
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t m = 0; m < g.out_channels; ++m) {
      double* out_plane = acc.data() + (n * g.out_channels + m) * plane;
      std::fill(out_plane, out_plane + plane, bias ? bias[m] : 0.0);
    }
  }
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t c = 0; c < g.in_channels; ++c) {
      const int64_t first_out_channel = (c / cg) * mg;
      for (int64_t id = 0; id < in[0]; ++id) {
        for (int64_t ih = 0; ih < in[1]; ++ih) {
          for (int64_t iw = 0; iw < in[2]; ++iw) {
            double xv = x[(((n * g.in_channels + c) * in[0] + id) * in[1] + ih) * in[2] + iw];
            for (int64_t mm = 0; mm < mg; ++mm) {
              for (int64_t kd = 0; kd < k[0]; ++kd) {
                int64_t od = id * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
                if (od < 0 || od >= out[0]) continue;
                for (int64_t kh = 0; kh < k[1]; ++kh) {
                  int64_t oh = ih * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
                  if (oh < 0 || oh >= out[1]) continue;
                  for (int64_t kw = 0; kw < k[2]; ++kw) {
                    int64_t ow = iw * g.stride[2] - g.pad_begin[2] + kw * g.dilation[2];
                    if (ow < 0 || ow >= out[2]) continue;
                    int64_t wi = (((c * mg + mm) * k[0] + kd) * k[1] + kh) * k[2] + kw;
                    int64_t m = first_out_channel + mm;
                    int64_t yi = (((n * g.out_channels + m) * out[0] + od) * out[1] + oh) * out[2] + ow;
                    acc[static_cast<size_t>(yi)] += xv * double{w[wi]};
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  T* y = ctx.out(0).data<T>();
  for (size_t i = 0; i < acc.size(); ++i) y[i] = static_cast<T>(apply_fused_activation(ctx.op.fused.get(), acc[i]));
  return {};
}

Status conv_transpose(KernelContext& ctx) {
  return run_float_kernel(ctx, [&](auto type) { return conv_transpose_typed<decltype(type)>(ctx); });
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(ConvTranspose, mote::reference::conv_transpose);
