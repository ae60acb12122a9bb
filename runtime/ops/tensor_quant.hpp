// A per-tensor quantised operand of an int8 op (QLinearAdd, QLinearMul,
// QLinearConcat and the QLinear pools): three inputs, the 8-bit data, one
// f32 scale and one zero point of the data's type, meaning
//   real = scale * (q - zero).
// One check for the shape functions and one reader for the kernels, so that
// every such op words its errors alike.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"
#include "runtime/core/op_def.hpp"

namespace mote {

struct TensorQuant {
  float scale = 1.0f;
  int32_t zero = 0;
};

// Input positions of one operand.
struct QuantOperand {
  size_t data, scale, zero;
  const char* name;  // "A", "X"...: errors say "A_scale", "A_zero_point"
};

// Checks the operand's types and that its parameters are one value each.
// Errors call it `label` (QLinearConcat's "X2"), by default its name.
Status check_tensor_quant(const ShapeContext& ctx, const QuantOperand& operand, const std::string& label = "");

// The operand's parameters; an error naming the scale unless it is finite
// and above 0 (only a damaged or hand-made model has another).
Result<TensorQuant> read_tensor_quant(const std::vector<const Tensor*>& inputs, const QuantOperand& operand,
                                      const std::string& label = "");

// The operands of the one-input int8 ops (QLinearActivation, the QLinear
// average pools): X, X_scale, X_zero_point, Y_scale, Y_zero_point.
inline constexpr QuantOperand kQUnaryX{0, 1, 2, "X"};
inline constexpr QuantOperand kQUnaryY{4, 3, 4, "Y"};  // Y's data is its zero point's type

struct QUnaryParams {
  TensorQuant x, y;
};
Result<QUnaryParams> read_qunary_params(const std::vector<const Tensor*>& inputs);

}  // namespace mote
