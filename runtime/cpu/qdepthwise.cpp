#include "runtime/cpu/qdepthwise.hpp"

#include <limits>

#include "runtime/cpu/conv_depthwise.hpp"
#include "runtime/cpu/plane_conv_shape.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/cpu/thread_scratch.hpp"
#include "runtime/ops/qlinear_conv.hpp"

namespace mote::cpu {

bool qdepthwise_applies(const ConvGeometry& g) {
  // 1-D and 2-D (depth 1 everywhere); a group per input channel.
  return g.in_channels_per_group() == 1 && g.group > 1 && g.kernel[0] == 1 && g.in_size[0] == 1 &&
         g.out_size[0] == 1 && g.pad_begin[1] >= 0 && g.pad_begin[2] >= 0;
}

namespace {

// The exact integer sums of one output plane into `sums` (out_h * out_w),
// bias not included: the float kernel where it takes the stride, else a
// plain loop over the taps.
void plane_sums(const ConvGeometry& g, const float* x, const float* taps, float* sums) {
  PlaneConvShape s =
      plane_conv_shape(g, -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity());
  if (plane_conv_supports_stride(s.stride_w)) {
    depthwise_plane(s, x, taps, 0.0f, sums, depthwise_scratch());
    return;
  }
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

template <class TX, class TY>
void run_typed(KernelContext& ctx, const ConvGeometry& g, const QDepthwiseWeights& w, const QRequantize& rq) {
  const TX* x = ctx.in(kQcX).data<TX>();
  TY* y = static_cast<TY*>(ctx.out(0).raw());
  const int64_t in_plane = g.in_size[1] * g.in_size[2], out_plane = g.out_size[1] * g.out_size[2];
  const int64_t mult = g.out_channels_per_group(), kvol = g.kernel[1] * g.kernel[2];
  ctx.pool->parallel_for(g.batch * g.out_channels, 1, [&](int64_t begin, int64_t end) {
    float* scratch = thread_scratch(static_cast<size_t>(in_plane + out_plane));
    float* plane = scratch;
    float* sums = scratch + in_plane;
    int64_t widened = -1;  // the (image, input channel) now in `plane`
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / g.out_channels, m = task % g.out_channels;
      const int64_t source = n * g.in_channels + m / mult;
      if (source != widened) {
        const TX* src = x + source * in_plane;
        for (int64_t i = 0; i < in_plane; ++i) plane[i] = static_cast<float>(int32_t{src[i]} - w.x_zero);
        widened = source;
      }
      plane_sums(g, plane, w.taps.data() + m * kvol, sums);
      qgemm_requantize_row(sums, out_plane, w.bias[static_cast<size_t>(m)], w.multiplier[static_cast<size_t>(m)],
                           residual_at(rq, task * out_plane), y + task * out_plane);
    }
  });
}

}  // namespace

void qdepthwise_run(KernelContext& ctx, const ConvGeometry& g, const QDepthwiseWeights& w, const QRequantize& rq) {
  const bool x_signed = ctx.in(kQcX).dtype() == DType::I8;
  if (rq.dtype == DType::I8) {
    x_signed ? run_typed<int8_t, int8_t>(ctx, g, w, rq) : run_typed<uint8_t, int8_t>(ctx, g, w, rq);
  } else {
    x_signed ? run_typed<int8_t, uint8_t>(ctx, g, w, rq) : run_typed<uint8_t, uint8_t>(ctx, g, w, rq);
  }
}

}  // namespace mote::cpu
