// int8 depthwise convolution (QLinearConv with one input channel per group,
// any multiplier, 1-D or 2-D): each output channel is a small stencil over
// one input plane, which the im2col + GEMM path would compute with a GEMM of
// one row per group, mostly padding. Where the CPU has VNNI and byte
// permutes (x86's AVX3_DL target), the integer kernel of qdepthwise_quads.hpp
// computes it. Elsewhere the float depthwise
// kernel (conv_depthwise.hpp, Highway) does, with the integer weights less
// their zero point, on the input less its zero point: the row path converts
// each row to float as it pads it (depthwise_plane_8bit); with one output
// channel per group, narrow outputs (prefers_channel_blocks) widen a block
// of channels and take the channel-block path, as float Convs do. Every
// product and partial sum is an integer below 2^24 (255 * 255 per tap; a
// kernel of more than 258 taps takes the GEMM), so the float sums are the
// exact int32 ones. The int32 bias is added after, and the sum requantised
// by qgemm's own store (qgemm_requantize_row: float multiplier, round half
// to even, the fused clamp), so every path gives the same outputs.
// Widths with strides other than 1 and 2 take a plain loop over a widened
// plane.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/cpu/qdepthwise_quads.hpp"
#include "runtime/cpu/qgemm.hpp"
#include "runtime/ops/conv_geometry.hpp"

namespace mote::cpu {

struct QDepthwiseWeights {
  std::vector<float> taps;    // per output channel, kernel_volume taps, less the weight zero point
  std::vector<int32_t> bias;  // per output channel (zeros when the op has none)
  std::vector<float> multiplier;
  QRequantize requantize;     // range, zero point and dtype (its bias and multiplier unused)
  int32_t x_zero = 0;
  QDepthwiseQuads quads;  // the integer kernel's weights, where this CPU has it
};

// Whether `g` is a depthwise convolution this kernel computes.
bool qdepthwise_applies(const ConvGeometry& g);

// y = requantised depthwise convolution of x (i8 or u8) into ctx.out(0);
// `rq` is w.requantize with this run's residual, if any.
void qdepthwise_run(KernelContext& ctx, const ConvGeometry& g, const QDepthwiseWeights& w, const QRequantize& rq);

}  // namespace mote::cpu
