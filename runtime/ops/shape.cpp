// Ops that describe or create tensors from shapes: Shape, Size,
// ConstantOfShape and Range.
#include "runtime/ops/shape.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "runtime/core/attrs.hpp"
#include "runtime/core/half.hpp"
#include "runtime/core/op_def.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote {

std::pair<int64_t, int64_t> shape_op_dims(const fb::OpT& op, int rank) {
  const auto& a = attrs<fb::ShapeAttrsT>(op);
  auto clamp_dim = [rank](int64_t d) { return std::clamp<int64_t>(d < 0 ? d + rank : d, 0, rank); };
  const int64_t first = clamp_dim(a.start);
  return {first, std::max(first, clamp_dim(a.end))};
}

namespace {

template <class T>
void store(T value, std::array<unsigned char, 8>& bytes) {
  std::memcpy(bytes.data(), &value, sizeof(T));
}

// Rounds toward zero and saturates at T's limits; NaN becomes 0.
template <class T>
T saturate(double v) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

}  // namespace

std::array<unsigned char, 8> constant_of_shape_bytes(double value, DType dtype) {
  std::array<unsigned char, 8> bytes{};
  switch (dtype) {
    case DType::F32: store(static_cast<float>(value), bytes); break;
    case DType::F64: store(value, bytes); break;
    case DType::F16: store(float_to_half(static_cast<float>(value)), bytes); break;
    case DType::I8: store(saturate<int8_t>(value), bytes); break;
    case DType::U8: store(saturate<uint8_t>(value), bytes); break;
    case DType::I32: store(saturate<int32_t>(value), bytes); break;
    case DType::I64: store(saturate<int64_t>(value), bytes); break;
    case DType::Bool: store(value != 0, bytes); break;
  }
  return bytes;
}

double scalar_as_double(const Tensor& t) {
  switch (t.dtype()) {
    case DType::F32: return *t.data<float>();
    case DType::F64: return *t.data<double>();
    case DType::I32: return *t.data<int32_t>();
    case DType::I64: return static_cast<double>(*t.data<int64_t>());
    default: return 0;
  }
}

int64_t scalar_as_int(const Tensor& t) {
  return t.dtype() == DType::I64 ? *t.data<int64_t>() : t.dtype() == DType::I32 ? *t.data<int32_t>() : 0;
}

Result<int64_t> range_length(const Tensor& start, const Tensor& limit, const Tensor& delta) {
  const DType dtype = start.dtype();
  if (dtype != DType::F32 && dtype != DType::F64 && dtype != DType::I32 && dtype != DType::I64) {
    return invalid_argument(std::string("'start' must be f32, f64, i32 or i64, not ") + dtype_name(dtype));
  }
  if (limit.dtype() != dtype || delta.dtype() != dtype) {
    return invalid_argument("'start', 'limit' and 'delta' must have the same dtype");
  }
  for (const Tensor* t : {&start, &limit, &delta}) {
    if (t->numel() != 1 || t->rank() > 1) return invalid_argument("'start', 'limit' and 'delta' must be scalars");
  }
  if (dtype == DType::I32 || dtype == DType::I64) {
    const int64_t first = scalar_as_int(start), last = scalar_as_int(limit), step = scalar_as_int(delta);
    if (step == 0) return invalid_argument("'delta' is 0");
    if (step > 0 ? last <= first : last >= first) return int64_t{0};
    // Distances in unsigned arithmetic stay exact where int64 would overflow.
    const uint64_t span = step > 0 ? uint64_t(last) - uint64_t(first) : uint64_t(first) - uint64_t(last);
    const uint64_t stride = step > 0 ? uint64_t(step) : uint64_t(0) - uint64_t(step);
    const uint64_t count = (span - 1) / stride + 1;
    if (count > uint64_t(INT64_MAX)) return invalid_argument("the range is too long");
    return static_cast<int64_t>(count);
  }
  const double first = scalar_as_double(start), step = scalar_as_double(delta);
  if (step == 0) return invalid_argument("'delta' is 0");
  const double count = std::ceil((scalar_as_double(limit) - first) / step);
  if (!std::isfinite(count)) return invalid_argument("'start', 'limit' and 'delta' give no finite length");
  if (count >= 9.2e18) return invalid_argument("the range is too long");
  return count > 0 ? static_cast<int64_t>(count) : int64_t{0};
}

namespace {

Status infer_shape(ShapeContext& ctx) {
  auto [first, last] = shape_op_dims(ctx.op, ctx.rank(0));
  ctx.set_output(0, DType::I64, {last - first});
  return {};
}

Status infer_size(ShapeContext& ctx) {
  ctx.set_output(0, DType::I64, {});
  return {};
}

Status infer_constant_of_shape(ShapeContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, known_int_list(ctx, 0, "'input' (the shape)"));
  for (int64_t d : shape) {
    if (d < 0) return ctx.fail("the shape has a negative dimension " + std::to_string(d));
  }
  if (shape_numel(shape) < 0) return ctx.fail("the shape's element count overflows");
  const DType dtype = attrs<fb::ConstantOfShapeAttrsT>(ctx.op).dtype;
  if (dtype_size(dtype) == 0) return ctx.fail("unknown dtype " + std::to_string(static_cast<int>(dtype)));
  ctx.set_output(0, dtype, std::move(shape));
  return {};
}

Status infer_range(ShapeContext& ctx) {
  const Tensor* values[3];
  const char* names[3] = {"'start' (input 0)", "'limit' (input 1)", "'delta' (input 2)"};
  for (size_t i = 0; i < 3; ++i) {
    MOTE_ASSIGN_OR_RETURN(values[i], known_input_value(ctx, i, names[i]));
  }
  auto length = range_length(*values[0], *values[1], *values[2]);
  if (!length.ok()) return ctx.fail(length.status().message());
  ctx.set_output(0, ctx.dtype(0), {*length});
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Shape, {.min_inputs = 1, .max_inputs = 1, .infer = mote::infer_shape});
MOTE_OP_DEF(Size, {.min_inputs = 1, .max_inputs = 1, .infer = mote::infer_size});
MOTE_OP_DEF(ConstantOfShape, {.min_inputs = 1, .max_inputs = 1, .value_inputs = 1u << 0, .infer = mote::infer_constant_of_shape});
MOTE_OP_DEF(Range, {.min_inputs = 3, .max_inputs = 3, .value_inputs = 0b111u, .infer = mote::infer_range});
