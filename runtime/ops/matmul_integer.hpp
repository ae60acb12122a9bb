// MatMulInteger (ONNX opset 10): Y = (A - a_zero_point) (B - b_zero_point)
// in exact int32, A and B i8 or u8, MatMul's shapes (numpy matmul: 1-D
// operands, broadcast batch dimensions). The zero points are optional (0);
// a_zero_point one value (ONNX also allows one per row of A, which the
// converter leaves to a float graph), b_zero_point one value or one per
// column of B.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/core/op_def.hpp"

namespace mote {

enum MatMulIntegerInput : size_t { kMiA = 0, kMiB = 1, kMiAZero = 2, kMiBZero = 3 };

struct MatMulIntegerParams {
  int32_t a_zero = 0;
  std::vector<int32_t> b_zero;  // one per column of B (a per-tensor value repeated)
};

// The zero points for a B of `columns` columns (the shape function has
// checked them); a_zero 0 while A's has no data yet (a prepare that sees
// it computed at run time).
MatMulIntegerParams read_matmul_integer_params(const KernelContext& ctx, int64_t columns);

}  // namespace mote
