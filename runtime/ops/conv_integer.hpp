// ConvInteger (ONNX opset 10): Conv's geometry and attributes over 8-bit x
// and w less their zero points, the sums exact in int32:
//   y = sum (x - x_zero_point) (w - w_zero_point[m]).
// x_zero_point one value (optional, 0), w_zero_point one value or one per
// output channel m (optional, 0).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/core/kernel.hpp"

namespace mote {

enum ConvIntegerInput : size_t { kCiX = 0, kCiW = 1, kCiXZero = 2, kCiWZero = 3 };

struct ConvIntegerParams {
  int32_t x_zero = 0;
  std::vector<int32_t> w_zero;  // one per output channel
};

// The zero points (the shape function has checked them); x_zero 0 while x's
// has no data yet (a prepare that sees it computed at run time).
ConvIntegerParams read_conv_integer_params(const KernelContext& ctx, int64_t out_channels);

}  // namespace mote
