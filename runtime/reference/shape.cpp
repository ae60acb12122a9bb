// Reference Shape, Size, ConstantOfShape and Range.
#include <cstring>

#include "runtime/core/kernel.hpp"
#include "runtime/ops/shape.hpp"

namespace mote::reference {
namespace {

Status shape(KernelContext& ctx) {
  auto [first, last] = shape_op_dims(ctx.op, ctx.in(0).rank());
  for (int64_t d = first; d < last; ++d) ctx.out(0).data<int64_t>()[d - first] = ctx.in(0).dim(static_cast<int>(d));
  return {};
}

Status size(KernelContext& ctx) {
  *ctx.out(0).data<int64_t>() = ctx.in(0).numel();
  return {};
}

Status constant_of_shape(KernelContext& ctx) {
  Tensor& out = ctx.out(0);
  const auto& a = attrs<fb::ConstantOfShapeAttrsT>(ctx.op);
  const auto bytes = constant_of_shape_bytes(a.value, out.dtype());
  const size_t size = dtype_size(out.dtype());
  for (int64_t i = 0; i < out.numel(); ++i) std::memcpy(static_cast<char*>(out.raw()) + i * int64_t(size), bytes.data(), size);
  return {};
}

// out[i] = start + i * delta, in double for floats and exact for integers.
Status range(KernelContext& ctx) {
  const Tensor& start = ctx.in(0);
  const Tensor& delta = ctx.in(2);
  Tensor& out = ctx.out(0);
  auto length = range_length(start, ctx.in(1), delta);
  if (!length.ok()) return ctx.fail(length.status().message());
  if (*length != out.numel()) return ctx.fail("output holds " + std::to_string(out.numel()) + " elements, not " + std::to_string(*length));
  for (int64_t i = 0; i < out.numel(); ++i) {
    const double real = scalar_as_double(start) + static_cast<double>(i) * scalar_as_double(delta);
    // Unsigned arithmetic wraps to the right value where i * delta alone would overflow.
    const int64_t whole = static_cast<int64_t>(uint64_t(scalar_as_int(start)) + uint64_t(i) * uint64_t(scalar_as_int(delta)));
    switch (out.dtype()) {
      case DType::F32: out.data<float>()[i] = static_cast<float>(real); break;
      case DType::F64: out.data<double>()[i] = real; break;
      case DType::I32: out.data<int32_t>()[i] = static_cast<int32_t>(whole); break;
      case DType::I64: out.data<int64_t>()[i] = whole; break;
      default: return ctx.fail(std::string("unsupported dtype ") + dtype_name(out.dtype()));
    }
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Shape, mote::reference::shape);
MOTE_REF_KERNEL(Size, mote::reference::size);
MOTE_REF_KERNEL(ConstantOfShape, mote::reference::constant_of_shape);
MOTE_REF_KERNEL(Range, mote::reference::range);
