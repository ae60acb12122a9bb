// Optimised pooling over NCHW (and NCW / NCDHW through the same 3-D loop).
//
// MaxPool and AveragePool run output rows in SIMD passes (pool_simd.hpp);
// MaxPool also on uint8 and int8, the quantised tensors of an int8 graph,
// whose order is their real values' order. Averages multiply by a per-output
// reciprocal of the tap count, which is separable per dim. MaxPool with its
// Indices output takes a scalar loop.
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

simd::PoolRows pool_rows_of(const PoolGeometry& g) {
  simd::PoolRows p;
  for (int d = 0; d < 3; ++d) {
    p.in[d] = g.in[d];
    p.out[d] = g.out[d];
    p.kernel[d] = g.kernel[d];
    p.stride[d] = g.stride[d];
    p.dilation[d] = g.dilation[d];
    p.pad_begin[d] = g.pad_begin[d];
  }
  return p;
}

// MaxPool (f32, u8, i8) or AveragePool (f32) without Indices: output rows
// spread over the pool, each task a range of them.
Status pool(KernelContext& ctx, bool is_max) {
  const Tensor& x = ctx.in(0);
  const DType dtype = x.dtype();
  if (dtype != DType::F32 && !(is_max && (dtype == DType::U8 || dtype == DType::I8))) {
    return ctx.fail(std::string("unsupported dtype ") + dtype_name(dtype));
  }
  const auto& attr = attrs<fb::PoolAttrsT>(ctx.op);
  auto geometry = pool_geometry(attr, x.shape());
  if (!geometry.ok()) return ctx.fail(geometry.status().message());
  const PoolGeometry g = geometry->as_3d();
  const int64_t rows = x.dim(0) * x.dim(1) * g.out[0] * g.out[1];
  if (rows * g.out[2] == 0) return {};

  simd::PoolRows p = pool_rows_of(g);
  std::vector<int64_t> counts[3];
  if (!is_max) {
    for (int d = 0; d < 3; ++d) {
      counts[d] = tap_counts(g, d, attr.count_include_pad);
      p.counts[d] = counts[d].data();
    }
  }
  const int64_t row_work = g.in[2] * g.kernel[0] * g.kernel[1] + g.out[2] * g.kernel[2];
  const int64_t grain = std::max<int64_t>(1, kGrainElements / row_work);
  Tensor& y = ctx.out(0);
  ctx.pool->parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
    switch (dtype) {
      case DType::U8: simd::max_pool_rows(p, x.data<uint8_t>(), y.data<uint8_t>(), begin, end); break;
      case DType::I8: simd::max_pool_rows(p, x.data<int8_t>(), y.data<int8_t>(), begin, end); break;
      default: simd::pool_rows(p, is_max, x.data<float>(), y.data<float>(), begin, end); break;
    }
  });
  return {};
}

template <class T>
bool is_nan(T v) {
  if constexpr (std::numeric_limits<T>::has_quiet_NaN) return std::isnan(v);
  return false;
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
template <class T>
void max_pool_with_indices(KernelContext& ctx, const PoolGeometry& g) {
  const Tensor& x = ctx.in(0);
  const int64_t planes = x.dim(0) * x.dim(1);
  const int64_t plane_in = g.in[0] * g.in[1] * g.in[2];
  const int64_t plane_out = g.out[0] * g.out[1] * g.out[2];
  const T* in = x.data<T>();
  T* out = ctx.out(0).data<T>();
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
                               T max = max_pool_identity<T>();
                               int64_t arg_max = -1;
                               for (int64_t kd = rd.begin; kd < rd.end; ++kd) {
                                 const int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
                                 for (int64_t kh = rh.begin; kh < rh.end; ++kh) {
                                   const int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
                                   const int64_t row = p * plane_in + (id * g.in[1] + ih) * g.in[2];
                                   for (int64_t kw = rw.begin; kw < rw.end; ++kw) {
                                     const int64_t at = row + ow * g.stride[2] - g.pad_begin[2] + kw * g.dilation[2];
                                     const T v = in[at];
                                     // An integer window's first tap counts even at the
                                     // type's lowest value (as the reference, whose max
                                     // starts below every integer).
                                     const bool first = arg_max < 0 && !std::numeric_limits<T>::has_infinity;
                                     if (first || (is_nan(v) ? !is_nan(max) : v > max)) {
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
  auto geometry = pool_geometry(attrs<fb::PoolAttrsT>(ctx.op), x.shape());
  if (!geometry.ok()) return ctx.fail(geometry.status().message());
  switch (x.dtype()) {
    case DType::F32: max_pool_with_indices<float>(ctx, geometry->as_3d()); return {};
    case DType::U8: max_pool_with_indices<uint8_t>(ctx, geometry->as_3d()); return {};
    case DType::I8: max_pool_with_indices<int8_t>(ctx, geometry->as_3d()); return {};
    default: return ctx.fail(std::string("unsupported dtype ") + dtype_name(x.dtype()));
  }
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

// GlobalAveragePool of a channel-blocked input (runtime/core/layout.hpp):
// per block, the pixels' vectors summed lane by lane in double
// (column_sums: one float sum per lane over EfficientNet-B0's 112x112
// planes, 12,544 terms, left its batch-3 output 1.4e-4 off onnxruntime's),
// into an NCHW output.
Status global_average_pool_blocked(KernelContext& ctx) {
  const Shape& shape = ctx.in(0).shape();
  const int64_t lanes = ctx.channel_block, blocks = (shape[1] + lanes - 1) / lanes;
  const int64_t pixels = shape[2] * shape[3];
  const float* in = ctx.in(0).data<float>();
  float* out = ctx.out(0).data<float>();
  ctx.pool->parallel_for(shape[0] * blocks, std::max<int64_t>(1, kGrainElements / (pixels * lanes)),
                         [&](int64_t begin, int64_t end) {
                           std::vector<float> sums(static_cast<size_t>(lanes));
                           for (int64_t task = begin; task < end; ++task) {
                             simd::column_sums(in + task * pixels * lanes, pixels, lanes, sums.data());
                             const int64_t n = task / blocks, c0 = task % blocks * lanes;
                             for (int64_t l = 0; l < lanes && c0 + l < shape[1]; ++l) {
                               out[n * shape[1] + c0 + l] = sums[static_cast<size_t>(l)] / static_cast<float>(pixels);
                             }
                           }
                         });
  return {};
}

Status global_max_pool(KernelContext& ctx) { return global_pool(ctx, true); }
Status global_average_pool(KernelContext& ctx) {
  return ctx.input_blocked(0) ? global_average_pool_blocked(ctx) : global_pool(ctx, false);
}

// A 4-D float input may come channel-blocked, read no faster than NCHW
// (so a producer does not write blocks for it alone); the output is NCHW.
BlockedSupport global_average_pool_layouts(const KernelContext& ctx) {
  if (ctx.in(0).dtype() != DType::F32 || ctx.in(0).shape().size() != 4) return {};
  BlockedSupport support;
  support.inputs = 1;
  support.indifferent = 1;
  return support;
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(MaxPool, mote::cpu::max_pool);
MOTE_CPU_KERNEL(AveragePool, mote::cpu::average_pool);
MOTE_CPU_KERNEL(GlobalMaxPool, mote::cpu::global_max_pool);
MOTE_CPU_KERNEL(GlobalAveragePool, mote::cpu::global_average_pool, nullptr, mote::cpu::global_average_pool_layouts);
