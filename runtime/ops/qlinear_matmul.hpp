// QLinearMatMul's quantisation parameters (ONNX's inputs 1, 2, 4, 5, 6, 7),
// checked and read once for the shape function and the kernels alike.
//   real a = a_scale * (a - a_zero_point), per tensor;
//   real b = b_scale[n] * (b - b_zero_point[n]), per tensor or per column n
//   (B's last axis);
//   y = saturate(round_half_even(act(acc * a_scale * b_scale[n]) / y_scale) + y_zero_point),
//   acc the int32 sum of the shifted products plus the bias, act a fused
//   Relu, Clip, HardSwish or SiLU (mote-convert fuses them; ONNX's op has
//   none).
// Mote's extension, written by `mote-convert --quantize int8` for a Gemm's
// or linear layer's bias: input 8, an optional i32 bias of one value per
// column, in units of a_scale * b_scale[n] (QLinearConv's B).
// A and B follow MatMul's shapes (numpy matmul: 1-D operands, broadcast
// batch dimensions).
#pragma once

#include <cstdint>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"
#include "runtime/core/kernel.hpp"

namespace mote {

// Input positions, ONNX's order.
enum QLinearMatMulInput : size_t {
  kQmA = 0,
  kQmAScale = 1,
  kQmAZero = 2,
  kQmB = 3,
  kQmBScale = 4,
  kQmBZero = 5,
  kQmYScale = 6,
  kQmYZero = 7,
  kQmBias = 8,  // Mote's extension
};

struct QLinearMatMulParams {
  float a_scale = 1.0f, y_scale = 1.0f;
  int32_t a_zero = 0, y_zero = 0;
  // One per column of B (a per-tensor value repeated).
  std::vector<float> b_scale;
  std::vector<int32_t> b_zero;
  DType y_dtype = DType::U8;
};

// The parameters' values for a B of `columns` columns; errors name the
// parameter (scales must be finite and above 0, as QLinearConv's).
// `inputs` are the op's, their parameters with host data.
Result<QLinearMatMulParams> read_qlinear_matmul_params(const std::vector<const Tensor*>& inputs, int64_t columns);
inline Result<QLinearMatMulParams> read_qlinear_matmul_params(const KernelContext& ctx, int64_t columns) {
  return read_qlinear_matmul_params(ctx.inputs, columns);
}

}  // namespace mote
