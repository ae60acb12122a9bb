// The int8 average pools, Mote's versions of onnxruntime's com.microsoft
// operators of the same names, on NCHW (channels-first) tensors:
//   QLinearAveragePool (PoolAttrs: AveragePool's windows, padding,
//     count_include_pad, ceil_mode, dilations)
//   QLinearGlobalAveragePool (one window over all spatial dims)
// Inputs X, X_scale, X_zero_point, Y_scale, Y_zero_point, per tensor
// (tensor_quant.hpp); Y takes Y_zero_point's type:
//   Y = saturate(round_half_even(X_scale * sum(X - X_zero_point) / count / Y_scale) + Y_zero_point)
// the sum over the window's taps inside X. A padding tap counted by
// count_include_pad is a real 0 (the code X_zero_point), as AveragePool's
// zero padding of the real values.
#pragma once

#include <vector>

#include "runtime/ops/tensor_quant.hpp"

namespace mote {

// Operands: tensor_quant.hpp's kQUnaryX and kQUnaryY.

}  // namespace mote
