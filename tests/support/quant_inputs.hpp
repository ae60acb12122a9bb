// Inputs of the per-tensor quantised int8 ops (QLinearAdd/Mul/Concat, the
// QLinear pools, QLinearActivation) for the CPU and Vulkan tests: codes
// spread over each type's range, scales that spread the results over the
// output's.
#pragma once

#include <cstdint>
#include <utility>

#include "tests/support/op_test_util.hpp"
#include "tests/support/qlinear_conv_cases.hpp"  // scalar_of

namespace mote::test {

// random_tensor bounds covering every code of an 8-bit type.
inline double code_low(DType d) { return d == DType::I8 ? -128 : 0; }
inline double code_high(DType d) { return d == DType::I8 ? 128 : 256; }
// A zero point given as uint8's, moved to int8's range for I8.
inline double zero_of(DType d, double u8_zero) { return d == DType::I8 ? u8_zero - 128 : u8_zero; }

inline Tensor random_codes(DType t, const Shape& shape, uint32_t seed) {
  return random_tensor(t, shape, seed, code_low(t), code_high(t));
}

// QLinearAdd / QLinearMul: A and B over their type's range; C's scale
// spreads the sums or products over C's.
inline Inputs qbinary_inputs(const Shape& a, const Shape& b, DType t, bool multiply, uint32_t seed) {
  return {random_codes(t, a, seed),
          scalar_of(DType::F32, 0.02),
          scalar_of(t, zero_of(t, 120)),
          random_codes(t, b, seed + 1),
          scalar_of(DType::F32, 0.03),
          scalar_of(t, zero_of(t, 131)),
          scalar_of(DType::F32, multiply ? 0.05 : 0.025),
          scalar_of(t, zero_of(t, 127))};
}

// X, X_scale, X_zero_point, Y_scale, Y_zero_point (QLinearActivation, the
// QLinear pools).
inline Inputs qunary_inputs(Tensor x, float x_scale, double x_zero, float y_scale, DType y_type, double y_zero) {
  const DType x_type = x.dtype();
  return {std::move(x), scalar_of(DType::F32, x_scale), scalar_of(x_type, x_zero), scalar_of(DType::F32, y_scale),
          scalar_of(y_type, y_zero)};
}

// The QLinear average pools: a finer Y than X, so the means land between
// X's codes.
inline Inputs qpool_inputs(const Shape& x, DType x_type, DType y_type, uint32_t seed) {
  return qunary_inputs(random_codes(x_type, x, seed), 0.05f, x_type == DType::I8 ? -7 : 121, 0.021f, y_type,
                       y_type == DType::I8 ? 3 : 130);
}

}  // namespace mote::test
