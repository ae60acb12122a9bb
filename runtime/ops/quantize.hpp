// Where the scale and zero point of each element of a QuantizeLinear or
// DequantizeLinear input live: shared by the shape function and kernels.
#pragma once

#include <cstdint>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

inline bool is_8bit(DType d) { return d == DType::I8 || d == DType::U8; }

// Element i of an i8 or u8 tensor.
int32_t int8_element(const Tensor& t, int64_t i);

// Maps an element of `x_shape` to its quantisation parameter, for a
// parameter tensor of `param_shape` (one element, 1-D along `axis`, or
// blocked: x's rank with `block_size` elements of x per parameter along
// `axis`).
class QuantParamIndex {
 public:
  static Result<QuantParamIndex> make(const Shape& x_shape, const Shape& param_shape, int64_t axis, int64_t block_size);
  // The parameter index of element `linear` of x.
  int64_t operator()(int64_t linear) const;

 private:
  enum class Kind { kTensor, kAxis, kBlocked } kind_ = Kind::kTensor;
  Shape x_shape_, param_shape_;
  size_t axis_ = 0;
  int64_t inner_ = 1;  // elements of x after the axis
  int64_t block_ = 1;
};

}  // namespace mote
