// Direct convolution writing the channel-blocked layout (runtime/core/
// layout.hpp) for the layers of one group that pointwise_blocked (1x1,
// stride 1, no padding) does not take, with a column stride of 1 or 2: from
// the input, NCHW or blocked, without im2col or packing. A tile is a run of
// output pixels x one or two output blocks; for each input channel and tap
// it broadcasts one input value per pixel (a stride apart) against the
// output blocks' weight vectors. Strided layers run along each output row:
// pixels whose taps cross the left or right padding one at a time with
// those taps left out, rows whose taps cross the top or bottom padding
// without those kernel rows. Stride-1 layers first copy their input into a
// zero-padded blocked buffer (transposing an NCHW input into blocks), where
// every output pixel's taps lie at the same offsets, so tiles run across
// output rows and the pixels computed past each row's end are dropped. The
// layout onnxruntime's NCHWc convolutions use between its layers; with it,
// stems and strided layers can hand blocks to the depthwise and 1x1 layers
// after them.
#pragma once

#include <cstdint>

#include "runtime/cpu/blocked_conv_weights.hpp"
#include "runtime/cpu/gemm.hpp"
#include "runtime/cpu/tile_activation.hpp"
#include "runtime/ops/conv_geometry.hpp"

namespace mote {
class ThreadPool;
}

namespace mote::cpu {

// Floats per vector of this kernel on this CPU.
int64_t conv_blocked_lanes();

// True when conv_blocked computes g: one group, 1-D or 2-D, a column stride
// of 1 or 2 (any kernel, row stride, dilation and padding).
bool conv_blocked_applies(const ConvGeometry& g);

// y [N][ceil(C_out / lanes)][out pixels][lanes] = conv(x, W) + bias
// (+ residual, in y's layout), then the epilogue's clamp, then `in_tile` and
// the epilogue's activation (at most one of them set; the epilogue's biases
// and residual are not used). `bias` holds whole blocks, zero past C_out.
// x is [N][C_in][in pixels] or, x_blocked, [N][ceil(C_in / lanes)][in
// pixels][lanes]. Padding lanes of y get the residual's padding lanes plus
// zero.
void conv_blocked(const ConvGeometry& g, const BlockedConvWeights& w, const float* bias, const float* x,
                  bool x_blocked, const float* residual, const GemmEpilogue& epilogue, TileActivation in_tile,
                  float* y, ThreadPool& pool);

}  // namespace mote::cpu
