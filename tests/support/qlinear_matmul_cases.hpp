// QLinearMatMul cases for the CPU and Vulkan tests: operand shapes and
// types, per-tensor or per-column B, the optional int32 bias, and inputs
// whose outputs spread over Y's range.
#pragma once

#include <cmath>
#include <string>

#include "runtime/core/shape_util.hpp"
#include "tests/support/op_test_util.hpp"
#include "tests/support/quant_inputs.hpp"

namespace mote::test {

struct MatMulCase {
  Shape a, b;
  DType a_type = DType::U8, b_type = DType::I8, y_type = DType::U8;
  bool per_column = true;
  // i8 B in [-64, 63] with zero points 0: the byte-pair kernel of x86 CPUs
  // without VNNI (qgemm.hpp); 8-bit B takes int16 pairs there.
  bool seven_bit = false;
  bool bias = false;  // input 8 (Mote's extension)
};

inline std::string label(const MatMulCase& c) {
  return "A " + shape_to_string(c.a) + " " + dtype_name(c.a_type) + ", B " + shape_to_string(c.b) + " " +
         dtype_name(c.b_type) + ", Y " + dtype_name(c.y_type) + (c.per_column ? ", per column" : "") +
         (c.seven_bit ? ", 7-bit B" : "") + (c.bias ? ", bias" : "");
}

inline Inputs matmul_inputs(const MatMulCase& c, uint32_t seed) {
  const int64_t k = c.b.size() == 1 ? c.b[0] : c.b[c.b.size() - 2];
  const int64_t n = c.b.size() == 1 ? 1 : c.b.back();
  // y_scale spreads the outputs over the type's range: a sum of k products
  // of values up to 128 spreads about 128^2 sqrt(k).
  const double b_peak = c.seven_bit ? 64.0 : 128.0;
  const double y_scale = 0.01 * 0.02 * 128.0 * b_peak * std::sqrt(static_cast<double>(k)) / 64.0;
  Tensor b_zero = c.per_column
                      ? random_tensor(c.b_type, {n}, seed + 4, code_low(c.b_type) / 8, code_high(c.b_type) / 8)
                      : scalar_of(c.b_type, c.b_type == DType::I8 ? 0 : 128);
  if (c.seven_bit) b_zero = c.per_column ? Tensor::zeros(DType::I8, {n}) : scalar_of(DType::I8, 0);
  Inputs inputs = {random_tensor(c.a_type, c.a, seed, code_low(c.a_type), code_high(c.a_type)),
                   scalar_of(DType::F32, 0.01),
                   scalar_of(c.a_type, c.a_type == DType::I8 ? 3 : 120),
                   random_tensor(c.b_type, c.b, seed + 1, c.seven_bit ? -64 : code_low(c.b_type),
                                 c.seven_bit ? 64 : code_high(c.b_type)),
                   c.per_column ? random_tensor(DType::F32, {n}, seed + 3, 0.01, 0.03) : scalar_of(DType::F32, 0.02),
                   b_zero,
                   scalar_of(DType::F32, y_scale),
                   scalar_of(c.y_type, c.y_type == DType::I8 ? -5 : 128)};
  if (c.bias) inputs.push_back(random_tensor(DType::I32, {n}, seed + 2, -5000, 5000));
  return inputs;
}

}  // namespace mote::test
