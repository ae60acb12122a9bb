// QLinearActivation: an activation on a per-tensor quantised tensor (the
// int8 form of Relu, Clip, HardSwish, Sigmoid, LeakyRelu and SiLU, which an
// int8 convolution's requantisation cannot apply itself):
//   Y = saturate(round_half_even(act(X_scale * (X - X_zero_point)) / Y_scale) + Y_zero_point)
// act is the op's fused activation (Op.fused; none requantises only).
// Inputs X, X_scale, X_zero_point, Y_scale, Y_zero_point (tensor_quant.hpp);
// Y takes Y_zero_point's type. An 8-bit X has 256 codes, so kernels may
// tabulate the op once.
#pragma once

#include "runtime/ops/tensor_quant.hpp"

namespace mote {

// Operands: tensor_quant.hpp's kQUnaryX and kQUnaryY.

}  // namespace mote
