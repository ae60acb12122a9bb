#include "runtime/cpu/qdepthwise.hpp"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "runtime/cpu/conv_depthwise.hpp"
#include "runtime/cpu/plane_conv_shape.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/cpu/thread_scratch.hpp"
#include "runtime/ops/qlinear_conv.hpp"

namespace mote::cpu {

bool qdepthwise_applies(const ConvGeometry& g) {
  // 1-D and 2-D (depth 1 everywhere); a group per input channel.
  // Float sums stay exact while every partial sum is below 2^24: at most
  // 255 * 255 per tap (258 taps; a longer 1-D kernel takes the GEMM).
  constexpr int64_t kExactTaps = (int64_t{1} << 24) / (255 * 255);
  return g.in_channels_per_group() == 1 && g.group > 1 && g.kernel[0] == 1 && g.in_size[0] == 1 &&
         g.out_size[0] == 1 && g.pad_begin[1] >= 0 && g.pad_begin[2] >= 0 && g.kernel_volume() <= kExactTaps;
}

namespace {

// The exact integer sums of one output plane of the widened input plane x
// (floats less the zero point) into `sums` (out_h * out_w), bias not
// included: a plain loop over the taps, for the widths strides the float
// kernel does not take.
void plane_sums(const PlaneConvShape& s, const float* x, const float* taps, float* sums) {
  for (int64_t oh = 0; oh < s.out_h; ++oh) {
    for (int64_t ow = 0; ow < s.out_w; ++ow) {
      float acc = 0.0f;
      for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
        const int64_t ih = oh * s.stride_h - s.pad_top + kh * s.dilation_h;
        if (ih < 0 || ih >= s.in_h) continue;
        for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
          const int64_t iw = ow * s.stride_w - s.pad_left + kw * s.dilation_w;
          if (iw >= 0 && iw < s.in_w) acc += taps[kh * s.kernel_w + kw] * x[ih * s.in_w + iw];
        }
      }
      sums[oh * s.out_w + ow] = acc;
    }
  }
}

// Plane `src` of `count` elements, less the zero point, as floats.
template <class TX>
void widen(const TX* src, int64_t count, int32_t zero, float* plane) {
  for (int64_t i = 0; i < count; ++i) plane[i] = static_cast<float>(int32_t{src[i]} - zero);
}

// Narrow planes (prefers_channel_blocks, multiplier 1): a block of channels
// at a time through the float kernel's channel-block path, as the float
// Conv runs them (the row path left 7x7 layers 2.5x slower than in float).
template <class TX, class TY>
void run_channel_blocks(KernelContext& ctx, const ConvGeometry& g, const PlaneConvShape& s,
                        const QDepthwiseWeights& w, const QRequantize& rq) {
  const TX* x = ctx.in(kQcX).data<TX>();
  TY* y = static_cast<TY*>(ctx.out(0).raw());
  const int64_t in_plane = g.in_pixels(), out_plane = g.out_pixels(), kvol = g.kernel_volume();
  const int64_t channels = g.in_channels, width = depthwise_block_channels();
  const int64_t blocks = (channels + width - 1) / width;
  ctx.pool->parallel_for(g.batch * blocks, 1, [&](int64_t begin, int64_t end) {
    float* planes = thread_scratch(static_cast<size_t>(width * (in_plane + out_plane)));
    float* sums = planes + width * in_plane;
    DepthwiseScratch& scratch = depthwise_scratch();
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / blocks, c0 = task % blocks * width, count = std::min(width, channels - c0);
      const int64_t first = n * channels + c0;  // plane index of the block's first channel
      widen(x + first * in_plane, count * in_plane, w.x_zero, planes);
      depthwise_channel_block(s, planes, false, in_plane, count, w.taps.data() + c0 * kvol, nullptr, sums, false,
                              out_plane, scratch);
      for (int64_t c = 0; c < count; ++c) {
        const size_t m = static_cast<size_t>(c0 + c);
        qgemm_requantize_row(sums + c * out_plane, out_plane, w.bias[m], w.multiplier[m],
                             residual_at(rq, (first + c) * out_plane), y + (first + c) * out_plane);
      }
    }
  });
}

template <class TX, class TY>
void run_typed(KernelContext& ctx, const ConvGeometry& g, const QDepthwiseWeights& w, const QRequantize& rq) {
  const PlaneConvShape s =
      plane_conv_shape(g, -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity());
  if (g.out_channels_per_group() == 1 && prefers_channel_blocks(s))
    return run_channel_blocks<TX, TY>(ctx, g, s, w, rq);
  const TX* x = ctx.in(kQcX).data<TX>();
  TY* y = static_cast<TY*>(ctx.out(0).raw());
  const int64_t in_plane = g.in_pixels(), out_plane = g.out_pixels();
  const int64_t mult = g.out_channels_per_group(), kvol = g.kernel_volume();
  // The float kernel converts each row as it pads it (no widened plane).
  const bool float_kernel = plane_conv_supports_stride(s.stride_w);
  ctx.pool->parallel_for(g.batch * g.out_channels, 1, [&](int64_t begin, int64_t end) {
    float* scratch = thread_scratch(static_cast<size_t>((float_kernel ? 0 : in_plane) + out_plane));
    float* sums = scratch;
    float* plane = scratch + out_plane;
    DepthwiseScratch& padded = depthwise_scratch();
    int64_t widened = -1;  // the (image, input channel) now in `plane`
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / g.out_channels, m = task % g.out_channels;
      const int64_t source = n * g.in_channels + m / mult;
      const float* taps = w.taps.data() + m * kvol;
      if (float_kernel) {
        depthwise_plane_8bit(s, x + source * in_plane, std::is_signed_v<TX>, w.x_zero, taps, sums, padded);
      } else {
        if (source != widened) {
          widen(x + source * in_plane, in_plane, w.x_zero, plane);
          widened = source;
        }
        plane_sums(s, plane, taps, sums);
      }
      qgemm_requantize_row(sums, out_plane, w.bias[static_cast<size_t>(m)], w.multiplier[static_cast<size_t>(m)],
                           residual_at(rq, task * out_plane), y + task * out_plane);
    }
  });
}

}  // namespace

void qdepthwise_run(KernelContext& ctx, const ConvGeometry& g, const QDepthwiseWeights& w, const QRequantize& rq) {
  if (qdepthwise_quads_run(ctx, g, w.quads, w.x_zero, w.bias, w.multiplier, rq)) return;
  const bool x_signed = ctx.in(kQcX).dtype() == DType::I8;
  if (rq.dtype == DType::I8) {
    x_signed ? run_typed<int8_t, int8_t>(ctx, g, w, rq) : run_typed<uint8_t, int8_t>(ctx, g, w, rq);
  } else {
    x_signed ? run_typed<int8_t, uint8_t>(ctx, g, w, rq) : run_typed<uint8_t, uint8_t>(ctx, g, w, rq);
  }
}

}  // namespace mote::cpu
