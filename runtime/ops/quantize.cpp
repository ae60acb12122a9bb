// QuantizeLinear(x, scale, zero_point?) -> i8/u8 of x's shape, and
// DequantizeLinear(x, scale, zero_point?) -> scale's float dtype: affine
// quantisation with per-tensor, per-axis or blocked parameters.
#include "runtime/ops/quantize.hpp"

#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/axis_split.hpp"

namespace mote {

Result<QuantParamIndex> QuantParamIndex::make(const Shape& x_shape, const Shape& param_shape, int64_t axis,
                                              int64_t block_size) {
  QuantParamIndex q;
  q.x_shape_ = x_shape;
  q.param_shape_ = param_shape;
  if (shape_numel(param_shape) == 1 && block_size == 0) return q;
  auto a = normalize_axis(axis, static_cast<int>(x_shape.size()));
  if (!a.ok()) return invalid_argument("axis " + std::to_string(axis) + " out of range for x " + shape_to_string(x_shape));
  q.axis_ = static_cast<size_t>(*a);
  q.inner_ = dims_product(x_shape, q.axis_ + 1, x_shape.size());
  if (block_size > 0) {
    Shape want = x_shape;
    want[q.axis_] = (x_shape[q.axis_] + block_size - 1) / block_size;
    if (param_shape != want) {
      return invalid_argument("blocked scale " + shape_to_string(param_shape) + " must be " + shape_to_string(want) +
                              " for x " + shape_to_string(x_shape) + " and block_size " + std::to_string(block_size));
    }
    q.kind_ = Kind::kBlocked;
    q.block_ = block_size;
    return q;
  }
  if (param_shape != Shape{x_shape[q.axis_]}) {
    return invalid_argument("scale " + shape_to_string(param_shape) + " must be one value or one per element of axis " +
                            std::to_string(*a) + " of x " + shape_to_string(x_shape));
  }
  q.kind_ = Kind::kAxis;
  return q;
}

int64_t QuantParamIndex::operator()(int64_t linear) const {
  switch (kind_) {
    case Kind::kTensor: return 0;
    case Kind::kAxis: return (linear / inner_) % x_shape_[axis_];
    case Kind::kBlocked: {
      // Unravel, divide the axis coordinate by the block, ravel into params.
      int64_t rest = linear, index = 0, stride = 1;
      for (size_t d = x_shape_.size(); d-- > 0;) {
        int64_t c = rest % x_shape_[d];
        rest /= x_shape_[d];
        if (d == axis_) c /= block_;
        index += c * stride;
        stride *= param_shape_[d];
      }
      return index;
    }
  }
  return 0;
}

int32_t int8_element(const Tensor& t, int64_t i) {
  return t.dtype() == DType::I8 ? int32_t{t.data<int8_t>()[i]} : int32_t{t.data<uint8_t>()[i]};
}

namespace {
bool is_float(DType d) { return d == DType::F32 || d == DType::F64; }

Status check_params(ShapeContext& ctx, const fb::QuantizeAttrsT& a) {
  auto index = QuantParamIndex::make(ctx.shape(0), ctx.shape(1), a.axis, a.block_size);
  if (!index.ok()) return ctx.fail(index.status().message());
  // One-element parameters may differ in rank ([] and [1]): onnxruntime's
  // quantiser writes such pairs, and both mean "per tensor".
  auto one_element = [](const Shape& s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return n == 1 && s.size() <= 1;
  };
  if (ctx.has_input(2) && ctx.shape(2) != ctx.shape(1) && !(one_element(ctx.shape(2)) && one_element(ctx.shape(1)))) {
    return ctx.fail("zero_point " + shape_to_string(ctx.shape(2)) + " must have the scale's shape " +
                    shape_to_string(ctx.shape(1)));
  }
  return {};
}

Status infer_quantize(ShapeContext& ctx) {
  const auto& a = attrs<fb::QuantizeAttrsT>(ctx.op);
  if (!is_float(ctx.dtype(0)) || ctx.dtype(1) != ctx.dtype(0)) {
    return ctx.fail(std::string("x and scale must be one float dtype, got ") + dtype_name(ctx.dtype(0)) + " and " +
                    dtype_name(ctx.dtype(1)));
  }
  const DType out = ctx.has_input(2) ? ctx.dtype(2) : a.output_dtype;
  if (!is_8bit(out)) return ctx.fail(std::string("quantises to i8 or u8, not ") + dtype_name(out));
  MOTE_RETURN_IF_ERROR(check_params(ctx, a));
  ctx.set_output(0, out, ctx.shape(0));
  return {};
}

Status infer_dequantize(ShapeContext& ctx) {
  const auto& a = attrs<fb::QuantizeAttrsT>(ctx.op);
  const bool int_input = is_8bit(ctx.dtype(0)) || ctx.dtype(0) == DType::I32;
  if (!int_input || !is_float(ctx.dtype(1)) || (ctx.has_input(2) && ctx.dtype(2) != ctx.dtype(0))) {
    return ctx.fail(std::string("x (i8, u8 or i32), scale (float) and zero_point (x's dtype) do not fit: ") +
                    dtype_name(ctx.dtype(0)) + ", " + dtype_name(ctx.dtype(1)) +
                    (ctx.has_input(2) ? std::string(", ") + dtype_name(ctx.dtype(2)) : std::string()));
  }
  MOTE_RETURN_IF_ERROR(check_params(ctx, a));
  ctx.set_output(0, ctx.dtype(1), ctx.shape(0));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(QuantizeLinear, {.min_inputs = 2, .max_inputs = 3, .infer = mote::infer_quantize});
MOTE_OP_DEF(DequantizeLinear, {.min_inputs = 2, .max_inputs = 3, .infer = mote::infer_dequantize});
