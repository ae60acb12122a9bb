// MaxPoolGrad and AveragePoolGrad on the CPU: one pass over the outputs of a
// plane, each scattering its gradient into the input taps of its window (the
// reference gathers per input instead, simpler to check, much slower).
// Planes are independent, so threads split them. Same choice of tap as
// MaxPool: the first NaN, else the first maximum, in window order.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "runtime/core/kernel.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/pool.hpp"

namespace mote::cpu {
namespace {

// The taps of one window along one dimension: positions pos0 + k * step for
// k in [0, kernel), of which those in [0, size) are inside the input and
// those in [-pad_begin, size + pad_end) count for count_include_pad.
struct Span {
  int64_t first = 0, last = 0;  // inside taps: k in [first, last)
  int64_t padded = 0;
};

Span span(int64_t pos0, int64_t step, int64_t kernel, int64_t size, int64_t pad_begin, int64_t pad_end) {
  Span s{kernel, 0, 0};
  for (int64_t k = 0; k < kernel; ++k) {
    const int64_t pos = pos0 + k * step;
    if (pos >= 0 && pos < size) {
      s.first = std::min(s.first, k);
      s.last = k + 1;
    }
    s.padded += pos >= -pad_begin && pos < size + pad_end;
  }
  if (s.last == 0) s.first = 0;
  return s;
}

void plane_grad(const PoolGeometry& g, bool is_max, bool count_include_pad, const float* x, const float* dy,
                float* dx) {
  std::memset(dx, 0, static_cast<size_t>(g.in[0] * g.in[1] * g.in[2]) * sizeof(float));
  for (int64_t od = 0; od < g.out[0]; ++od) {
    const int64_t d0 = od * g.stride[0] - g.pad_begin[0];
    const Span sd = span(d0, g.dilation[0], g.kernel[0], g.in[0], g.pad_begin[0], g.pad_end[0]);
    for (int64_t oh = 0; oh < g.out[1]; ++oh) {
      const int64_t h0 = oh * g.stride[1] - g.pad_begin[1];
      const Span sh = span(h0, g.dilation[1], g.kernel[1], g.in[1], g.pad_begin[1], g.pad_end[1]);
      for (int64_t ow = 0; ow < g.out[2]; ++ow, ++dy) {
        const int64_t w0 = ow * g.stride[2] - g.pad_begin[2];
        const Span sw = span(w0, g.dilation[2], g.kernel[2], g.in[2], g.pad_begin[2], g.pad_end[2]);
        auto index = [&](int64_t kd, int64_t kh, int64_t kw) {
          return ((d0 + kd * g.dilation[0]) * g.in[1] + h0 + kh * g.dilation[1]) * g.in[2] + w0 + kw * g.dilation[2];
        };
        if (is_max) {
          int64_t best = -1;
          for (int64_t kd = sd.first; kd < sd.last; ++kd) {
            for (int64_t kh = sh.first; kh < sh.last; ++kh) {
              for (int64_t kw = sw.first; kw < sw.last; ++kw) {
                const int64_t t = index(kd, kh, kw);
                if (best < 0 || (std::isnan(x[t]) ? !std::isnan(x[best]) : x[t] > x[best])) best = t;
              }
            }
          }
          if (best >= 0) dx[best] += *dy;
        } else {
          const int64_t inside = (sd.last - sd.first) * (sh.last - sh.first) * (sw.last - sw.first);
          const int64_t count = count_include_pad ? sd.padded * sh.padded * sw.padded : inside;
          if (count == 0) continue;
          const float share = *dy / static_cast<float>(count);
          for (int64_t kd = sd.first; kd < sd.last; ++kd) {
            for (int64_t kh = sh.first; kh < sh.last; ++kh) {
              for (int64_t kw = sw.first; kw < sw.last; ++kw) dx[index(kd, kh, kw)] += share;
            }
          }
        }
      }
    }
  }
}

Status pool_grad(KernelContext& ctx, bool is_max) {
  const Tensor& xt = ctx.in(0);
  if (xt.dtype() != DType::F32) return ctx.fail(std::string("the CPU kernel computes in f32, got ") + dtype_name(xt.dtype()));
  const auto& a = attrs<fb::PoolAttrsT>(ctx.op);
  auto geometry = pool_geometry(a, xt.shape());
  if (!geometry.ok()) return ctx.fail(geometry.status().message());
  const PoolGeometry g = geometry->as_3d();
  const int64_t plane_in = g.in[0] * g.in[1] * g.in[2];
  const int64_t plane_out = g.out[0] * g.out[1] * g.out[2];
  const float* x = xt.data<float>();
  const float* dy = ctx.in(1).data<float>();
  float* dx = ctx.out(0).data<float>();
  auto planes = [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      plane_grad(g, is_max, a.count_include_pad, x + p * plane_in, dy + p * plane_out, dx + p * plane_in);
    }
  };
  const int64_t count = xt.dim(0) * xt.dim(1);
  if (ctx.pool) {
    ctx.pool->parallel_for(count, 1, planes);
  } else {
    planes(0, count);
  }
  return {};
}

Status max_pool_grad(KernelContext& ctx) { return pool_grad(ctx, true); }
Status average_pool_grad(KernelContext& ctx) { return pool_grad(ctx, false); }

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(MaxPoolGrad, mote::cpu::max_pool_grad);
MOTE_CPU_KERNEL(AveragePoolGrad, mote::cpu::average_pool_grad);
