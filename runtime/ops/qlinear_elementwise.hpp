// The int8 elementwise ops, Mote's versions of onnxruntime's com.microsoft
// operators of the same names; every tensor per-tensor quantised
// (tensor_quant.hpp: real = scale * (q - zero)):
//   QLinearAdd   C = saturate(round_half_even(act(real A + real B) / C_scale) + C_zero_point)
//   QLinearMul   the same with real A * real B
//     inputs A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale,
//     C_zero_point; A, B and C of one 8-bit type (as onnxruntime's), A and
//     B broadcast (numpy); act a fused Relu or Clip, or none.
//   QLinearConcat (axis)  Y = Concat of each X_k requantised from its own
//     scale and zero point to Y's
//     inputs Y_scale, Y_zero_point, then X, X_scale, X_zero_point for each
//     input; any mix of i8 and u8 inputs, Y of Y_zero_point's type.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "runtime/ops/tensor_quant.hpp"

namespace mote {

inline constexpr QuantOperand kQBinaryA{0, 1, 2, "A"};
inline constexpr QuantOperand kQBinaryB{3, 4, 5, "B"};
inline constexpr QuantOperand kQBinaryC{7, 6, 7, "C"};  // C's data is its zero point's type

// A's, B's and C's parameters, in that order.
Result<std::array<TensorQuant, 3>> read_qbinary_params(const std::vector<const Tensor*>& inputs);

inline constexpr QuantOperand kQConcatY{1, 0, 1, "Y"};
// The k-th input's data, scale and zero point.
inline QuantOperand qconcat_input(size_t k) { return {2 + 3 * k, 3 + 3 * k, 4 + 3 * k, "X"}; }
inline size_t qconcat_count(size_t inputs) { return (inputs - 2) / 3; }
// What errors call it: "X0", "X1"...
inline std::string qconcat_label(size_t k) { return std::string("X").append(std::to_string(k)); }

}  // namespace mote
