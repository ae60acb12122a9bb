// Dilated 3x3 stride-1 convolutions as undilated Winograd ones. With
// dilation d along an axis, output position y = d Y + r reads input
// positions y + d k - pad = d (Y + k + q) + s, where r - pad = d q + s and
// 0 <= s < d: only input phase s (positions s, s + d, s + 2d, ...), at its
// rows Y + q + k. So each of the d_h x d_w output phases is an undilated 3x3
// convolution over one input phase (with -q rows of zeros before it), and
// Winograd applies to each, where the im2col GEMM of the dilated layer does
// every multiply-add (DeepLab's dilated ResNet stages and ASPP branches).
// The input phases are gathered into a dense buffer, and each output phase
// is scattered back into place.
#pragma once

#include "runtime/core/attrs.hpp"
#include "runtime/cpu/conv_winograd.hpp"
#include "runtime/ops/conv_geometry.hpp"

namespace mote {
class ThreadPool;
}

namespace mote::cpu {

// The undilated convolution computing output phase (ry, rx) of g, over its
// input phase: in_size is the part of the phase it reads, pad_begin and
// pad_end the zeros around that part.
ConvGeometry dilation_phase_geometry(const ConvGeometry& g, int64_t ry, int64_t rx);

// Whether dilated_winograd_conv computes g: 2-D, one group, 3x3, stride 1,
// dilated along some axis, every output phase reading at least one input
// row and column, and Winograd applying to output phase (0, 0), the one
// with the most outputs (the others, a row or column fewer, take its
// variant too).
bool dilation_phases_apply(const ConvGeometry& g);

// The transformed weights, as winograd_pack_weights makes them for output
// phase (0, 0); every phase uses them.
WinogradWeights dilation_phases_pack_weights(const ConvGeometry& g, const float* w);

// y = act(conv(x, w) + bias) for NCHW x and y; `bias` may be null, `act`
// null for none.
void dilated_winograd_conv(const ConvGeometry& g, const WinogradWeights& u, const float* x, const float* bias,
                           const fb::FusedActivationT* act, float* y, ThreadPool& pool);

}  // namespace mote::cpu
