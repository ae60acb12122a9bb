// The reference int8 kernels' requantisation, in double: y[i] =
// saturate(round_half_even(real / y_scale) + y_zero) for an i8 or u8 Y.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "mote/tensor.hpp"

namespace mote::reference {

inline void store_requantized(double real, float y_scale, int32_t y_zero, Tensor& y, int64_t i) {
  const bool is_signed = y.dtype() == DType::I8;
  const double q =
      std::clamp(std::nearbyint(real / y_scale) + y_zero, is_signed ? -128.0 : 0.0, is_signed ? 127.0 : 255.0);
  if (is_signed) {
    y.data<int8_t>()[i] = static_cast<int8_t>(q);
  } else {
    y.data<uint8_t>()[i] = static_cast<uint8_t>(q);
  }
}

}  // namespace mote::reference
