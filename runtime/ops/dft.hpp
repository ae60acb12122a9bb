// DFT's geometry, shared by its shape function and kernel.
#pragma once

#include <cstdint>

#include "mote/status.hpp"
#include "mote/tensor.hpp"
#include "runtime/core/attrs.hpp"

namespace mote {

// Inputs: 0 x [..., 1 (real) or 2 (complex)], 1 dft_length?, 2 axis? (both
// value inputs; axis defaults to -2, counted over x's dims).
struct DftGeometry {
  int axis = 0;       // the signal axis of x
  int64_t length = 0; // n, the transform length
  Shape out;
};

Result<DftGeometry> dft_geometry(const fb::DftAttrsT& a, const Shape& x, const Tensor* length, const Tensor* axis);

}  // namespace mote
