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

inline constexpr QuantOperand kQPoolX{0, 1, 2, "X"};
inline constexpr QuantOperand kQPoolY{4, 3, 4, "Y"};  // Y's data is its zero point's type

struct QPoolParams {
  TensorQuant x, y;
};
Result<QPoolParams> read_qpool_params(const std::vector<const Tensor*>& inputs);

}  // namespace mote
