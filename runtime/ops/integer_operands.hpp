// MatMulInteger's and ConvInteger's operands, which line up alike: two
// 8-bit tensors A and B (x and w; inputs 0 and 1) and their optional zero
// points (inputs 2 and 3, 0 when absent): A's one value (ONNX also allows
// MatMulInteger's one per row, which the converter leaves to a float
// graph), B's one value or one per column of B (per output channel of w).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mote/status.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/core/op_def.hpp"

namespace mote {

// How errors name the operands, their zero points and what B's zero
// points may be one per: MatMulInteger's {"A", "B", "a_zero_point",
// "b_zero_point", "column of B"}, ConvInteger's {"x", "w", ...}.
struct IntegerOperandNames {
  std::string a, b, a_zero, b_zero, per_b;
};

// The operands' types and the zero points' types and shapes, for a B with
// `b_count` columns (output channels).
Status check_integer_operands(ShapeContext& ctx, const IntegerOperandNames& names, int64_t b_count);

struct IntegerZeroPoints {
  int32_t a = 0;           // 0 while A's has no data yet (a prepare that sees it computed per run)
  std::vector<int32_t> b;  // one per column (output channel), a per-tensor value repeated
};

// The zero points (check_integer_operands has checked them).
IntegerZeroPoints read_integer_zero_points(const KernelContext& ctx, int64_t b_count);

}  // namespace mote
