// 1x1 convolution (stride 1, one group) writing the channel-blocked layout
// (runtime/core/layout.hpp) straight from its input, NCHW or blocked: no
// im2col, no packing of the activations, no transpose. A tile is a run of
// pixels x one or two output blocks; for each input channel the tile
// broadcasts one input value per pixel (read where it lies, a plane apart in
// NCHW, a block apart when blocked) against the output blocks' weight
// vectors. The GEMM's turned product did the same with panels of 8 pixels
// that it packed first, which lost to the plain product on NCHW where
// output channels are few (one vector per tile row) or pixels many.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/cpu/blocked_conv_weights.hpp"
#include "runtime/cpu/gemm.hpp"
#include "runtime/cpu/tile_activation.hpp"

namespace mote {
class ThreadPool;
}

namespace mote::cpu {

// Floats per vector of this kernel on this CPU.
int64_t pointwise_blocked_lanes();

// y [N][ceil(C_out / lanes)][pixels][lanes] = W x + bias (+ residual, in y's
// layout), then the epilogue's clamp, then `in_tile` and the epilogue's
// activation (at most one of them set; the epilogue's biases and residual
// are not used). `bias` holds whole blocks, zero past C_out (w.bias,
// or another bias padded alike). x is [N][C_in][pixels] or, x_blocked,
// [N][ceil(C_in / lanes)][pixels][lanes]. Padding lanes of y get the
// residual's padding lanes plus zero.
void pointwise_blocked(const BlockedConvWeights& w, const float* bias, int64_t batch, int64_t pixels, const float* x,
                       bool x_blocked, const float* residual, const GemmEpilogue& epilogue, TileActivation in_tile,
                       float* y, ThreadPool& pool);

}  // namespace mote::cpu
