// MatMulInteger (ONNX opset 10): Y = (A - a_zero_point) (B - b_zero_point)
// in exact int32, A and B i8 or u8, MatMul's shapes (numpy matmul: 1-D
// operands, broadcast batch dimensions); the zero points as
// integer_operands.hpp describes (B's one per column).
#pragma once

#include <cstddef>

#include "runtime/ops/integer_operands.hpp"

namespace mote {

enum MatMulIntegerInput : size_t { kMiA = 0, kMiB = 1, kMiAZero = 2, kMiBZero = 3 };

}  // namespace mote
