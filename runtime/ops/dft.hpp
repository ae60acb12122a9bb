// DFT's geometry, shared by its shape function and kernel.
#pragma once

#include <cstdint>

#include "mote/status.hpp"
#include "mote/tensor.hpp"
#include "runtime/core/attrs.hpp"
#include "runtime/ops/axis_split.hpp"

namespace mote {

// Inputs: 0 x [..., 1 (real) or 2 (complex)], 1 dft_length?, 2 axis? (both
// value inputs; axis defaults to -2, counted over x's dims).
struct DftGeometry {
  int axis = 0;       // the signal axis of x
  int64_t length = 0; // n, the transform length
  Shape out;
};

Result<DftGeometry> dft_geometry(const fb::DftAttrsT& a, const Shape& x, const Tensor* length, const Tensor* axis);

// Where point k of an n-point signal comes from along x's axis: the input
// is zero-padded or truncated to n (index -1: a zero), and an inverse
// one-sided input is the half spectrum of a real signal, extended by
// conjugate symmetry.
struct DftSource {
  int64_t index = -1;
  bool conjugate = false;
};

inline DftSource dft_source(const fb::DftAttrsT& a, const AxisSplit& x, int64_t n, int64_t k) {
  const int64_t src = a.inverse && a.onesided && k > n / 2 ? n - k : k;
  if (src >= x.axis) return {};
  return {src, src != k};
}

}  // namespace mote
