// QLinearConv test cases shared by the CPU and Vulkan tests: random 8-bit
// inputs with scales that spread the outputs over the output type's range.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "runtime/core/attrs.hpp"
#include "tests/support/op_test_util.hpp"

namespace mote::test {

struct QuantCase {
  DType x_type = DType::U8, w_type = DType::I8, y_type = DType::U8;
  bool per_channel = true;
  bool bias = true;
  // A fused residual (inputs 9-11) of this type, or none (F32).
  DType residual = DType::F32;
  // i8 weights in [-64, 63] with zero points 0 (mote-convert --weight-bits
  // 7): the byte-pair kernel of x86 CPUs without VNNI (qgemm.hpp).
  bool seven_bit_weights = false;
};

struct QLinearConvCase {
  fb::OpT op;
  Inputs inputs;
  std::string label;  // shapes, types and options, for SCOPED_TRACE
};

// A one-element tensor of f32, int8 or uint8.
Tensor scalar_of(DType dtype, double value);

// The op and its inputs, or nullopt when the geometry is invalid.
std::optional<QLinearConvCase> qlinear_conv_case(const Shape& x, const Shape& w, const fb::ConvAttrsT& a,
                                                 const QuantCase& q, const fb::FusedActivationT* act = nullptr,
                                                 uint32_t seed = 1);

// At most a handful in a thousand of `actual`'s bytes differ from
// `expected`'s (by one quantum, at near-ties of the float requantisation);
// both are 8-bit tensors of the same size.
int64_t bytes_off(const Tensor& actual, const Tensor& expected);

// Distinct byte values in t: the scales must spread the outputs, or a
// comparison checks little more than saturation.
int64_t distinct_bytes(const Tensor& t);

}  // namespace mote::test
