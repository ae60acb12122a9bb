// Direct convolution writing the channel-blocked layout (runtime/core/
// layout.hpp), for kernels larger than 1x1 and strides of 1 or 2 along the
// rows (pointwise_blocked takes 1x1 stride-1 layers): straight from the
// input, NCHW or blocked, without im2col, packing or a transpose. A tile is
// a run of output pixels along one output row x one or two output blocks;
// for each input channel and each tap it broadcasts one input value per
// pixel (a stride apart) against the output blocks' weight vectors. Pixels
// whose taps cross the left or right padding run one at a time with those
// taps left out; output rows whose taps cross the top or bottom padding
// leave out those kernel rows. The layout onnxruntime's NCHWc convolutions
// use between its layers; with it, strided and stem convolutions keep a
// network blocked from its first layer on.
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

// True when conv_blocked computes g: one group, 1-D or 2-D, stride 1 or 2
// along the rows (any kernel, row stride, dilation and padding).
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
