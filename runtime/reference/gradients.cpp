// Reference gradient kernels: the forward op's loops (reference/conv.cpp,
// reference/pool.cpp) run again, scattering gradients instead of gathering
// values, accumulated in double.
#include "runtime/reference/gradients.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/ops/conv_geometry.hpp"
#include "runtime/ops/pool.hpp"
#include "runtime/reference/float_types.hpp"

namespace mote::reference {
namespace {

template <class T>
Status conv_grad_weight_typed(KernelContext& ctx) {
  const Tensor& xt = ctx.in(0);
  const Tensor& dyt = ctx.in(1);
  Tensor& dwt = ctx.out(0);
  auto resolved = resolve_conv(attrs<fb::ConvAttrsT>(ctx.op), xt.shape(), dwt.shape());
  if (!resolved.ok()) return ctx.fail(resolved.status().message());
  const ConvGeometry& g = *resolved;
  const T* x = xt.data<T>();
  const T* dy = dyt.data<T>();
  T* dw = dwt.data<T>();
  const auto& in = g.in_size;
  const auto& out = g.out_size;
  const auto& k = g.kernel;
  const int64_t cg = g.in_channels_per_group();
  const int64_t mg = g.out_channels_per_group();
  for (int64_t m = 0; m < g.out_channels; ++m) {
    const int64_t first_channel = (m / mg) * cg;
    for (int64_t c = 0; c < cg; ++c) {
      for (int64_t kd = 0; kd < k[0]; ++kd) {
        for (int64_t kh = 0; kh < k[1]; ++kh) {
          for (int64_t kw = 0; kw < k[2]; ++kw) {
            double acc = 0.0;
            for (int64_t n = 0; n < g.batch; ++n) {
              for (int64_t od = 0; od < out[0]; ++od) {
                const int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
                if (id < 0 || id >= in[0]) continue;
                for (int64_t oh = 0; oh < out[1]; ++oh) {
                  const int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
                  if (ih < 0 || ih >= in[1]) continue;
                  for (int64_t ow = 0; ow < out[2]; ++ow) {
                    const int64_t iw = ow * g.stride[2] - g.pad_begin[2] + kw * g.dilation[2];
                    if (iw < 0 || iw >= in[2]) continue;
                    const int64_t xi = (((n * g.in_channels + first_channel + c) * in[0] + id) * in[1] + ih) * in[2] + iw;
                    const int64_t yi = (((n * g.out_channels + m) * out[0] + od) * out[1] + oh) * out[2] + ow;
                    acc += double{x[xi]} * double{dy[yi]};
                  }
                }
              }
            }
            dw[(((m * cg + c) * k[0] + kd) * k[1] + kh) * k[2] + kw] = static_cast<T>(acc);
          }
        }
      }
    }
  }
  return {};
}

// Calls tap(output index, input index, inside) for every tap of every pool
// window of one plane, in the order reference/pool.cpp visits them.
template <class Window>
void for_each_window(const PoolGeometry& g, Window window) {
  const int64_t plane_out = g.out[0] * g.out[1] * g.out[2];
  std::vector<int64_t> taps;
  for (int64_t o = 0; o < plane_out; ++o) {
    const int64_t o_at[3] = {o / (g.out[1] * g.out[2]), o / g.out[2] % g.out[1], o % g.out[2]};
    taps.clear();
    int64_t padded = 0;
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
          const int64_t k_at[3] = {kd, kh, kw};
          bool inside = true, in_padding = true;
          int64_t index = 0;
          for (int d = 0; d < 3; ++d) {
            const int64_t pos = o_at[d] * g.stride[d] - g.pad_begin[d] + k_at[d] * g.dilation[d];
            inside = inside && pos >= 0 && pos < g.in[d];
            in_padding = in_padding && pos >= -g.pad_begin[d] && pos < g.in[d] + g.pad_end[d];
            index = index * g.in[d] + pos;
          }
          padded += in_padding;
          if (inside) taps.push_back(index);
        }
      }
    }
    window(o, taps, padded);
  }
}

template <class T>
Status pool_grad_typed(KernelContext& ctx, bool is_max) {
  const Tensor& xt = ctx.in(0);
  const auto& a = attrs<fb::PoolAttrsT>(ctx.op);
  auto geometry = pool_geometry(a, xt.shape());
  if (!geometry.ok()) return ctx.fail(geometry.status().message());
  const PoolGeometry g = geometry->as_3d();
  const int64_t planes = xt.dim(0) * xt.dim(1);
  const int64_t plane_in = g.in[0] * g.in[1] * g.in[2];
  const int64_t plane_out = g.out[0] * g.out[1] * g.out[2];
  const T* dy = ctx.in(1).data<T>();
  T* dx = ctx.out(0).data<T>();
  std::vector<double> acc(static_cast<size_t>(plane_in));
  for (int64_t p = 0; p < planes; ++p) {
    const T* x = xt.data<T>() + p * plane_in;
    std::fill(acc.begin(), acc.end(), 0.0);
    for_each_window(g, [&](int64_t o, const std::vector<int64_t>& taps, int64_t padded) {
      const double grad = dy[p * plane_out + o];
      if (is_max) {
        // The tap MaxPool picked: the first NaN, else the first maximum.
        int64_t best = -1;
        for (int64_t t : taps) {
          if (best < 0 || (std::isnan(x[t]) ? !std::isnan(x[best]) : x[t] > x[best])) best = t;
        }
        if (best >= 0) acc[static_cast<size_t>(best)] += grad;
      } else {
        const int64_t count = a.count_include_pad ? padded : static_cast<int64_t>(taps.size());
        for (int64_t t : taps) acc[static_cast<size_t>(t)] += grad / static_cast<double>(count);
      }
    });
    for (int64_t i = 0; i < plane_in; ++i) dx[p * plane_in + i] = static_cast<T>(acc[static_cast<size_t>(i)]);
  }
  return {};
}

Status pool_grad(KernelContext& ctx, bool is_max) {
  return run_float_kernel(ctx, [&](auto type) { return pool_grad_typed<decltype(type)>(ctx, is_max); });
}

}  // namespace

Status conv_grad_weight(KernelContext& ctx) {
  return run_float_kernel(ctx, [&](auto type) { return conv_grad_weight_typed<decltype(type)>(ctx); });
}

Status max_pool_grad(KernelContext& ctx) { return pool_grad(ctx, true); }
Status average_pool_grad(KernelContext& ctx) { return pool_grad(ctx, false); }

}  // namespace mote::reference

MOTE_REF_KERNEL(ConvGradWeight, mote::reference::conv_grad_weight);
MOTE_REF_KERNEL(MaxPoolGrad, mote::reference::max_pool_grad);
MOTE_REF_KERNEL(AveragePoolGrad, mote::reference::average_pool_grad);
