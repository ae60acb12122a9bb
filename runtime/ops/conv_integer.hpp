// ConvInteger (ONNX opset 10): Conv's geometry and attributes over 8-bit x
// and w less their zero points, the sums exact in int32:
//   y = sum (x - x_zero_point) (w - w_zero_point[m]),
// the zero points as integer_operands.hpp describes (w's one per output
// channel m).
#pragma once

#include <cstddef>

#include "runtime/ops/integer_operands.hpp"

namespace mote {

enum ConvIntegerInput : size_t { kCiX = 0, kCiW = 1, kCiXZero = 2, kCiWZero = 3 };

}  // namespace mote
