// Winograd convolution F(4x4, 3x3), and F(2x2, 3x3) for small images, for
// 3x3, stride-1, undilated, ungrouped 2-D Conv (Lavin and Gray, "Fast
// Algorithms for Convolutional Neural Networks", 2016). Each 4x4 block of
// outputs comes from a 6x6 block of inputs with 36 multiplications per
// channel pair instead of 144 (each 2x2 block from a 4x4 one with 16 instead
// of 36); the products become one GEMM per transform point, [C_out, C_in] x
// [C_in, tiles], so the time still goes into the tuned sgemm. Weights are
// transformed and packed once at prepare (36 or 16 x C_out x C_in floats,
// four or 1.8 times the 3x3 weights).
//
// Accuracy: the transforms scale values by up to 5 (input) and 8 (output),
// which costs a few bits against a direct sum (F(2x2, 3x3)'s coefficients
// are 0 and +-1, its weight transform's 1/2). Measured against onnxruntime on
// whole networks (tests/bench/peers):
// max|diff| / max|output| 2.6e-6 on ResNet-18 and 1.8e-6 on ResNet-50 with
// both variants, within the 1e-4 Mote is held to.
#pragma once

#include <vector>

#include "runtime/core/attrs.hpp"
#include "runtime/cpu/gemm.hpp"
#include "runtime/ops/conv_geometry.hpp"

namespace mote {
class ThreadPool;
}

namespace mote::cpu {

// The transformed weights: for each point of the transform domain (6x6 or
// 4x4), U_point [C_out, C_in] packed as a GEMM left operand.
struct WinogradWeights {
  int tile = 0;  // outputs per tile side: 4 or 2
  std::vector<PackedMatrix> points;
  bool empty() const { return points.empty(); }
};

// The outputs per tile side of the Winograd variant that applies and pays
// (4 or 2), or 0 for none: 3x3, stride 1, dilation 1, one group, 2-D, and
// enough channels and output tiles for the GEMMs to be efficient.
int winograd_tile(const ConvGeometry& g);

WinogradWeights winograd_pack_weights(const ConvGeometry& g, const float* w);

// y = act(conv(x, w) + bias + residual); `bias` and `residual` (y's shape)
// may be null, `act` null for none.
void winograd_conv(const ConvGeometry& g, const WinogradWeights& u, const float* x, const float* bias,
                   const float* residual, const fb::FusedActivationT* act, float* y, ThreadPool& pool);

}  // namespace mote::cpu
