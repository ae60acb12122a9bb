// Direct convolution for inputs of few channels: a network's first layer
// (RGB, grey, a handful of features). Through im2col and the GEMM, the
// column matrix has only C x kh x kw rows (27 for RGB 3x3), so building and
// packing it costs about as much as the product, and the product's panels
// are too short to reach the GEMM's rate. Measured alone, 1 thread, AVX2
// (Zen 3), best of 800 interleaved runs, im2col path -> this one:
// SqueezeNet's 3->64 3x3 stride 2 0.97 -> 0.67 ms, MobileNetV2's 3->32 3x3
// stride 2 0.52 -> 0.33 ms, ResNet's 3->64 7x7 stride 2 3.64 -> 2.97 ms.
//
// Each image's channels are copied once into zero-padded planes laid out as
// the depthwise row path's (padded_plane-inl.h: rows split by parity for a
// width stride of 2), so that every tap of a run of consecutive outputs is
// one contiguous load. A tile is 8 output channels (4 with 16 vector
// registers) x up to three vectors of one output row: per tap, one load per
// vector and one broadcast weight per channel feed 24 (12) multiply-adds
// (accumulators in registers, like the GEMM's microkernel). Bias starts the
// sums; Relu and Clip clamp as the rows are stored in NCHW; other activations and a
// residual take a pass over each finished row while it is in cache. Threads
// split (output row, channel block) pairs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/core/attrs.hpp"
#include "runtime/ops/conv_geometry.hpp"

namespace mote {
class ThreadPool;
}

namespace mote::cpu {

// The unit of output channels the weights are packed in (a tile takes all
// of a block or half).
constexpr int64_t kDirectConvBlock = 8;
// Up to this many input channels per group take the direct path.
constexpr int64_t kDirectConvMaxChannels = 4;

// True when direct_conv computes g: one group of at most
// kDirectConvMaxChannels input channels, 1-D or 2-D, width stride 1 or 2
// (any kernel, height stride, dilation and padding).
bool direct_conv_applies(const ConvGeometry& g);

// W [M, C, kh, kw] as direct_conv reads it: [M / block][C][kh][kw][block],
// block kDirectConvBlock, zeros for the channels past M in the last block.
std::vector<float> direct_conv_pack_weights(const ConvGeometry& g, const float* w);
// The number of floats direct_conv_pack_weights returns for g.
size_t direct_conv_pack_weights_size(const ConvGeometry& g);

// y = act(x (*) W + bias + residual) for NCHW x and y; `packed` from
// direct_conv_pack_weights, bias ([M]) and residual (y's shape) may be null.
void direct_conv(const ConvGeometry& g, const std::vector<float>& packed, const float* x, const float* bias,
                 const float* residual, const fb::FusedActivationT* act, float* y, ThreadPool& pool);

}  // namespace mote::cpu
