// The int8 kernels' requantisation in double: y = saturate(round_half_even(
// real / y_scale) + y_zero) for an i8 or u8 Y. The reference kernels store
// it per element; the table ops (QLinearActivation, QLinearConcat) of every
// backend map X's 256 codes through it once (code_table), so all agree.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "mote/tensor.hpp"
#include "runtime/core/attrs.hpp"
#include "runtime/ops/tensor_quant.hpp"
#include "runtime/reference/fused_activation.hpp"

namespace mote::reference {

// The code of `real` in (y_scale, y_zero) as the byte an i8 or u8 holds.
inline uint8_t requantized_byte(double real, float y_scale, int32_t y_zero, DType y_dtype) {
  const bool is_signed = y_dtype == DType::I8;
  const double q =
      std::clamp(std::nearbyint(real / y_scale) + y_zero, is_signed ? -128.0 : 0.0, is_signed ? 127.0 : 255.0);
  return static_cast<uint8_t>(static_cast<int32_t>(q));  // an int8's two's complement byte
}

inline void store_requantized(double real, float y_scale, int32_t y_zero, Tensor& y, int64_t i) {
  static_cast<uint8_t*>(y.raw())[i] = requantized_byte(real, y_scale, y_zero, y.dtype());
}

// table[b]: the Y code of the X code whose byte is b, through `act` (null:
// none), the real value in double.
inline std::array<uint8_t, 256> code_table(DType x_dtype, const TensorQuant& x, DType y_dtype, const TensorQuant& y,
                                           const fb::FusedActivationT* act = nullptr) {
  std::array<uint8_t, 256> table{};
  for (int byte = 0; byte < 256; ++byte) {
    const int32_t code = x_dtype == DType::I8 ? static_cast<int8_t>(byte) : byte;
    const double real = apply_fused_activation(act, double{x.scale} * (code - x.zero));
    table[static_cast<size_t>(byte)] = requantized_byte(real, y.scale, y.zero, y_dtype);
  }
  return table;
}

}  // namespace mote::reference
