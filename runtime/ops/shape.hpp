// Shape, Size, ConstantOfShape and Range: what their shape functions and
// kernels share.
#pragma once

#include <array>
#include <cstdint>
#include <utility>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

// The dims [first, last) that Shape outputs: 'start' and 'end' count from
// the back when negative and are clamped into [0, rank].
std::pair<int64_t, int64_t> shape_op_dims(const fb::OpT& op, int rank);

// ConstantOfShape's value in `dtype`'s bytes (integers saturate, NaN -> 0).
std::array<unsigned char, 8> constant_of_shape_bytes(double value, DType dtype);

// Range's element count, max(ceil((limit - start) / delta), 0); the three
// are one-element tensors of the same dtype (f32, f64, i32 or i64).
Result<int64_t> range_length(const Tensor& start, const Tensor& limit, const Tensor& delta);

// Element `i` of a one-element tensor as double / int64, for Range.
double scalar_as_double(const Tensor& t);
int64_t scalar_as_int(const Tensor& t);

}  // namespace mote
