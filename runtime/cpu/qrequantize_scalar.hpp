// One requantisation in double, for int8 kernels that requantise few values
// (a pool's output per window, a concatenation's 256-entry tables): the
// definition itself, y = saturate(round_half_even(real / scale) + zero), so
// those kernels equal the reference exactly.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "mote/tensor.hpp"
#include "runtime/ops/tensor_quant.hpp"

namespace mote::cpu {

// The code of `real` in y's quantisation, as the byte an i8 or u8 holds.
inline uint8_t requantized_byte(double real, const TensorQuant& y, DType y_dtype) {
  const bool is_signed = y_dtype == DType::I8;
  const double q =
      std::clamp(std::nearbyint(real / y.scale) + y.zero, is_signed ? -128.0 : 0.0, is_signed ? 127.0 : 255.0);
  return static_cast<uint8_t>(static_cast<int32_t>(q));  // an int8's two's complement byte
}

}  // namespace mote::cpu
