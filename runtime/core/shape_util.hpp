// Shape arithmetic shared by shape functions and kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

// ONNX multidirectional (numpy) broadcasting of two or more shapes.
Result<Shape> broadcast_shapes(const Shape& a, const Shape& b);
Result<Shape> broadcast_shapes(const std::vector<Shape>& shapes);

// Maps a possibly negative axis into [0, rank); error when out of range.
Result<int> normalize_axis(int64_t axis, int rank);

// Row-major element strides of `shape`.
std::vector<int64_t> contiguous_strides(const Shape& shape);

// Strides of `shape` read as if broadcast to `out_shape` (0 on broadcast dims);
// `shape` is right-aligned against `out_shape`.
std::vector<int64_t> broadcast_strides(const Shape& shape, const Shape& out_shape);

}  // namespace mote
