// Optimised pooling over NCHW (and NCW / NCDHW through the same 3-D loop).
//
// Each task produces one output row of one (n, c) plane in two SIMD passes:
// the input rows its windows span (kd x kh of them, fewer at the borders) are
// combined element-wise into a padded scratch row, then every output takes its
// kw taps from that row, strides 1 and 2 vectorised (the 3x3 / 2x2, stride
// 1 / 2 layers of CNNs), any kernel size and dilation. Averages multiply by a
// per-output reciprocal of the tap count, which is separable per dim.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/cpu/pool_simd.hpp"
#include "runtime/cpu/row_simd.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/pool.hpp"

namespace mote::cpu {
namespace {

// Elements below which splitting work over threads costs more than it saves.
constexpr int64_t kGrainElements = 1 << 14;

// Per output position along one dim, how many of its taps count towards the
// average: those inside the input, or also those in the padding.
std::vector<int64_t> tap_counts(const PoolGeometry& g, int d, bool include_pad) {
  const int64_t lo = include_pad ? -g.pad_begin[d] : 0;
  const int64_t hi = include_pad ? g.in[d] + g.pad_end[d] : g.in[d];
  std::vector<int64_t> counts(static_cast<size_t>(g.out[d]), 0);
  for (int64_t o = 0; o < g.out[d]; ++o) {
    for (int64_t k = 0; k < g.kernel[d]; ++k) {
      const int64_t pos = o * g.stride[d] - g.pad_begin[d] + k * g.dilation[d];
      counts[static_cast<size_t>(o)] += pos >= lo && pos < hi;
    }
  }
  return counts;
}

Status pool(KernelContext& ctx, bool is_max) {
  const Tensor& x = ctx.in(0);
  if (x.dtype() != DType::F32) return ctx.fail(std::string("unsupported dtype ") + dtype_name(x.dtype()));
  const auto& attr = attrs<fb::PoolAttrsT>(ctx.op);
  auto geometry = pool_geometry(attr, x.shape());
  if (!geometry.ok()) return ctx.fail(geometry.status().message());
  const PoolGeometry g = geometry->as_3d();
  const int64_t planes = x.dim(0) * x.dim(1);
  const int64_t in_d = g.in[0], in_h = g.in[1], in_w = g.in[2];
  const int64_t out_d = g.out[0], out_h = g.out[1], out_w = g.out[2];
  const int64_t rows_per_plane = out_d * out_h;
  if (planes * rows_per_plane * out_w == 0) return {};

  std::vector<int64_t> counts[3];
  if (!is_max) {
    for (int d = 0; d < 3; ++d) counts[d] = tap_counts(g, d, attr.count_include_pad);
  }
  // The scratch row holds input columns [-pad_begin, ...): padding and
  // anything past the input stay at the identity (-inf / 0).
  const int64_t taps_extent = (out_w - 1) * g.stride[2] + (g.kernel[2] - 1) * g.dilation[2] + 1;
  const int64_t scratch_size = std::max(taps_extent, g.pad_begin[2] + in_w) + g.stride[2] + simd::window_row_slack();
  const float identity = is_max ? -std::numeric_limits<float>::infinity() : 0.0f;
  const int64_t row_work = in_w * g.kernel[0] * g.kernel[1] + out_w * g.kernel[2];

  const float* in = x.data<float>();
  float* out = ctx.out(0).data<float>();
  ctx.pool->parallel_for(
      planes * rows_per_plane, std::max<int64_t>(1, kGrainElements / row_work), [&](int64_t begin, int64_t end) {
        std::vector<float> scratch(static_cast<size_t>(scratch_size), identity);
        std::vector<float> scale(static_cast<size_t>(out_w));
        std::vector<const float*> rows;
        // Task t is output row oh of depth od of plane p, t = (p * out_d + od) * out_h + oh.
        int64_t plane = begin / rows_per_plane, od = begin % rows_per_plane / out_h, oh = begin % out_h;
        for (int64_t task = begin; task < end; ++task, ++oh) {
          if (oh == out_h) {
            oh = 0;
            if (++od == out_d) {
              od = 0;
              ++plane;
            }
          }
          const float* plane_in = in + plane * in_d * in_h * in_w;
          rows.clear();
          for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
            const int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
            if (id < 0 || id >= in_d) continue;
            for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
              const int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
              if (ih >= 0 && ih < in_h) rows.push_back(plane_in + (id * in_h + ih) * in_w);
            }
          }
          simd::combine_rows(is_max, rows.data(), static_cast<int64_t>(rows.size()), in_w,
                             scratch.data() + g.pad_begin[2]);
          if (!is_max) {
            const int64_t row_count = counts[0][static_cast<size_t>(od)] * counts[1][static_cast<size_t>(oh)];
            for (int64_t ow = 0; ow < out_w; ++ow) {
              const int64_t count = row_count * counts[2][static_cast<size_t>(ow)];
              scale[static_cast<size_t>(ow)] = count ? 1.0f / static_cast<float>(count) : 0.0f;
            }
          }
          simd::window_row(is_max, scratch.data(), out_w, g.kernel[2], g.stride[2], g.dilation[2], scale.data(),
                           out + task * out_w);
        }
      });
  return {};
}

// The taps k in [begin, end) of output position o along one dim whose input
// position o * stride - pad_begin + k * dilation is inside [0, in).
struct TapRange {
  int64_t begin, end;
};

TapRange taps_inside(const PoolGeometry& g, int d, int64_t o) {
  const int64_t start = o * g.stride[d] - g.pad_begin[d];
  const int64_t dil = g.dilation[d];
  const int64_t begin = start >= 0 ? 0 : (-start + dil - 1) / dil;
  const int64_t end = start >= g.in[d] ? 0 : std::min(g.kernel[d], (g.in[d] - 1 - start) / dil + 1);
  return {begin, std::max(begin, end)};
}

// MaxPool with its Indices output: a scalar loop over each window's taps
// inside the input (the separable SIMD passes lose track of positions),
// planes spread over the pool. Indices are flat offsets into all of X; the
// first NaN, else the first occurrence of the max, wins; -1 when no tap
// lands in the input.
void max_pool_with_indices(KernelContext& ctx, const PoolGeometry& g) {
  const Tensor& x = ctx.in(0);
  const int64_t planes = x.dim(0) * x.dim(1);
  const int64_t plane_in = g.in[0] * g.in[1] * g.in[2];
  const int64_t plane_out = g.out[0] * g.out[1] * g.out[2];
  const float* in = x.data<float>();
  float* out = ctx.out(0).data<float>();
  int64_t* indices = ctx.out(1).data<int64_t>();
  const int64_t window = g.kernel[0] * g.kernel[1] * g.kernel[2];
  ctx.pool->parallel_for(planes, std::max<int64_t>(1, kGrainElements / std::max<int64_t>(plane_out * window, 1)),
                         [&](int64_t begin, int64_t end) {
                           for (int64_t p = begin; p < end; ++p) {
                             for (int64_t o = 0; o < plane_out; ++o) {
                               const int64_t od = o / (g.out[1] * g.out[2]), oh = o / g.out[2] % g.out[1];
                               const int64_t ow = o % g.out[2];
                               const TapRange rd = taps_inside(g, 0, od), rh = taps_inside(g, 1, oh);
                               const TapRange rw = taps_inside(g, 2, ow);
                               float max = -std::numeric_limits<float>::infinity();
                               int64_t arg_max = -1;
                               for (int64_t kd = rd.begin; kd < rd.end; ++kd) {
                                 const int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
                                 for (int64_t kh = rh.begin; kh < rh.end; ++kh) {
                                   const int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
                                   const int64_t row = p * plane_in + (id * g.in[1] + ih) * g.in[2];
                                   for (int64_t kw = rw.begin; kw < rw.end; ++kw) {
                                     const int64_t at = row + ow * g.stride[2] - g.pad_begin[2] + kw * g.dilation[2];
                                     const float v = in[at];
                                     if (std::isnan(v) ? !std::isnan(max) : v > max) {
                                       max = v;
                                       arg_max = at;
                                     }
                                   }
                                 }
                               }
                               out[p * plane_out + o] = max;
                               indices[p * plane_out + o] = arg_max;
                             }
                           }
                         });
}

Status max_pool(KernelContext& ctx) {
  if (ctx.outputs.size() < 2 || !ctx.outputs[1]) return pool(ctx, true);
  const Tensor& x = ctx.in(0);
  if (x.dtype() != DType::F32) return ctx.fail(std::string("unsupported dtype ") + dtype_name(x.dtype()));
  auto geometry = pool_geometry(attrs<fb::PoolAttrsT>(ctx.op), x.shape());
  if (!geometry.ok()) return ctx.fail(geometry.status().message());
  max_pool_with_indices(ctx, geometry->as_3d());
  return {};
}
Status average_pool(KernelContext& ctx) { return pool(ctx, false); }

// One SIMD reduction per (n, c) plane.
Status global_pool(KernelContext& ctx, bool is_max) {
  const Tensor& x = ctx.in(0);
  if (x.dtype() != DType::F32 || x.rank() < 3) return ctx.fail("expects an f32 input of rank >= 3");
  const AxisSplit s = split_at_axis(x.shape(), 1);
  const float* in = x.data<float>();
  float* out = ctx.out(0).data<float>();
  const simd::RowOp op = is_max ? simd::RowOp::kMax : simd::RowOp::kSum;
  ctx.pool->parallel_for(s.outer * s.axis, std::max<int64_t>(1, kGrainElements / std::max<int64_t>(s.inner, 1)),
                         [&](int64_t begin, int64_t end) {
                           for (int64_t p = begin; p < end; ++p) {
                             const float r = simd::reduce_row(op, in + p * s.inner, s.inner);
                             out[p] = is_max ? r : r / static_cast<float>(s.inner);
                           }
                         });
  return {};
}

Status global_max_pool(KernelContext& ctx) { return global_pool(ctx, true); }
Status global_average_pool(KernelContext& ctx) { return global_pool(ctx, false); }

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(MaxPool, mote::cpu::max_pool);
MOTE_CPU_KERNEL(AveragePool, mote::cpu::average_pool);
MOTE_CPU_KERNEL(GlobalMaxPool, mote::cpu::global_max_pool);
MOTE_CPU_KERNEL(GlobalAveragePool, mote::cpu::global_average_pool);
