// Optimised QLinearAveragePool and QLinearGlobalAveragePool. Each window's
// taps inside the input are found per dimension once (a range of kernel
// offsets per output coordinate), so the sum runs without a bounds check
// per tap; the sums are exact integers and each mean is requantised in
// double as the reference does (qrequantize_scalar.hpp), so the two agree
// exactly. Planes (N x C) are split over the threads.
#include "runtime/ops/qlinear_pool.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/cpu/qrequantize_scalar.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/pool.hpp"

namespace mote::cpu {
namespace {

// Input elements per parallel task.
constexpr int64_t kGrain = 1 << 15;

// Kernel offsets k in [first, last) whose position start + k * dilation
// lies in [lo, hi).
struct TapRange {
  int64_t first = 0, last = 0;
  int64_t count() const { return std::max<int64_t>(0, last - first); }
};

int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

TapRange taps_within(int64_t start, int64_t dilation, int64_t kernel, int64_t lo, int64_t hi) {
  TapRange r;
  r.first = start >= lo ? 0 : ceil_div(lo - start, dilation);
  r.last = std::min(kernel, ceil_div(hi - start, dilation));
  return r;
}

// Per dimension and output coordinate: the taps inside the input, and the
// number inside the input or its padding (count_include_pad's).
struct AxisWindows {
  std::vector<TapRange> inside;
  std::vector<int64_t> padded;
};

AxisWindows axis_windows(const PoolGeometry& g, int d) {
  AxisWindows w;
  for (int64_t o = 0; o < g.out[d]; ++o) {
    const int64_t start = o * g.stride[d] - g.pad_begin[d];
    w.inside.push_back(taps_within(start, g.dilation[d], g.kernel[d], 0, g.in[d]));
    w.padded.push_back(
        taps_within(start, g.dilation[d], g.kernel[d], -g.pad_begin[d], g.in[d] + g.pad_end[d]).count());
  }
  return w;
}

template <class T>
void average_planes(const T* x, uint8_t* y, int64_t begin, int64_t end, const PoolGeometry& g,
                    const AxisWindows (&w)[3], bool count_include_pad, const QUnaryParams& q, DType y_dtype) {
  const int64_t plane_in = g.in[0] * g.in[1] * g.in[2];
  const int64_t plane_out = g.out[0] * g.out[1] * g.out[2];
  for (int64_t p = begin; p < end; ++p) {
    const T* in = x + p * plane_in;
    uint8_t* out = y + p * plane_out;
    for (int64_t od = 0; od < g.out[0]; ++od) {
      const TapRange rd = w[0].inside[static_cast<size_t>(od)];
      for (int64_t oh = 0; oh < g.out[1]; ++oh) {
        const TapRange rh = w[1].inside[static_cast<size_t>(oh)];
        for (int64_t ow = 0; ow < g.out[2]; ++ow) {
          const TapRange rw = w[2].inside[static_cast<size_t>(ow)];
          int64_t sum = 0;
          for (int64_t kd = rd.first; kd < rd.last; ++kd) {
            const int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
            for (int64_t kh = rh.first; kh < rh.last; ++kh) {
              const int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
              // (Indices, not a row pointer: the window's start may lie
              // before the row, in its padding.)
              const int64_t at = (id * g.in[1] + ih) * g.in[2] + ow * g.stride[2] - g.pad_begin[2];
              for (int64_t kw = rw.first; kw < rw.last; ++kw) sum += in[at + kw * g.dilation[2]];
            }
          }
          const int64_t inside = rd.count() * rh.count() * rw.count();
          const int64_t count = count_include_pad
                                    ? w[0].padded[static_cast<size_t>(od)] * w[1].padded[static_cast<size_t>(oh)] *
                                          w[2].padded[static_cast<size_t>(ow)]
                                    : inside;
          const double mean = count ? static_cast<double>(sum - inside * q.x.zero) / static_cast<double>(count) : 0.0;
          *out++ = requantized_byte(double{q.x.scale} * mean, q.y, y_dtype);
        }
      }
    }
  }
}

Status qlinear_average_pool(KernelContext& ctx) {
  auto params = read_qunary_params(ctx.inputs);
  if (!params.ok()) return ctx.fail(params.status().message());
  const Tensor& x = ctx.in(kQUnaryX.data);
  const auto& a = attrs<fb::PoolAttrsT>(ctx.op);
  auto geometry = pool_geometry(a, x.shape());
  if (!geometry.ok()) return ctx.fail(geometry.status().message());
  const PoolGeometry g = geometry->as_3d();
  const AxisWindows w[3] = {axis_windows(g, 0), axis_windows(g, 1), axis_windows(g, 2)};
  const int64_t plane_in = g.in[0] * g.in[1] * g.in[2];
  auto* y = static_cast<uint8_t*>(ctx.out(0).raw());
  const DType y_dtype = ctx.out(0).dtype();
  ctx.pool->parallel_for(
      x.dim(0) * x.dim(1), std::max<int64_t>(1, kGrain / std::max<int64_t>(1, plane_in)),
      [&](int64_t begin, int64_t end) {
        if (x.dtype() == DType::I8) {
          average_planes(x.data<int8_t>(), y, begin, end, g, w, a.count_include_pad, *params, y_dtype);
        } else {
          average_planes(x.data<uint8_t>(), y, begin, end, g, w, a.count_include_pad, *params, y_dtype);
        }
      });
  return {};
}

// The sum of n codes: a plain loop the compiler vectorises.
template <class T>
int64_t sum_codes(const T* x, int64_t n) {
  int64_t sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  return sum;
}

Status qlinear_global_average_pool(KernelContext& ctx) {
  auto params = read_qunary_params(ctx.inputs);
  if (!params.ok()) return ctx.fail(params.status().message());
  const Tensor& x = ctx.in(kQUnaryX.data);
  const AxisSplit s = split_at_axis(x.shape(), 1);
  auto* y = static_cast<uint8_t*>(ctx.out(0).raw());
  const DType y_dtype = ctx.out(0).dtype();
  const QUnaryParams& q = *params;
  ctx.pool->parallel_for(
      s.outer * s.axis, std::max<int64_t>(1, kGrain / std::max<int64_t>(1, s.inner)),
      [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) {
          const int64_t sum = x.dtype() == DType::I8 ? sum_codes(x.data<int8_t>() + p * s.inner, s.inner)
                                                     : sum_codes(x.data<uint8_t>() + p * s.inner, s.inner);
          const double mean =
              s.inner ? static_cast<double>(sum - s.inner * q.x.zero) / static_cast<double>(s.inner) : 0.0;
          y[p] = requantized_byte(double{q.x.scale} * mean, q.y, y_dtype);
        }
      });
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(QLinearAveragePool, mote::cpu::qlinear_average_pool);
MOTE_CPU_KERNEL(QLinearGlobalAveragePool, mote::cpu::qlinear_global_average_pool);
