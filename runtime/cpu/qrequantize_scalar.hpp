// One requantisation in double, for int8 kernels that requantise few values
// (a pool's output per window): the definition itself (reference
// requantize.hpp), so those kernels equal the reference exactly.
#pragma once

#include <cstdint>

#include "mote/tensor.hpp"
#include "runtime/ops/tensor_quant.hpp"
#include "runtime/reference/requantize.hpp"

namespace mote::cpu {

// The code of `real` in y's quantisation, as the byte an i8 or u8 holds.
inline uint8_t requantized_byte(double real, const TensorQuant& y, DType y_dtype) {
  return reference::requantized_byte(real, y.scale, y.zero, y_dtype);
}

}  // namespace mote::cpu
