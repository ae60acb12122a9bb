// Optimised Shape, Size, ConstantOfShape and Range. Shape and Size only write
// the input's shape (their input data is never read, so the session can fold
// them at prepare time).
#include <algorithm>
#include <type_traits>

#include "runtime/core/kernel.hpp"
#include "runtime/cpu/strided_copy.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/shape.hpp"

namespace mote::cpu {
namespace {

Status shape(KernelContext& ctx) {
  auto [first, last] = shape_op_dims(ctx.op, ctx.in(0).rank());
  std::copy(ctx.in(0).shape().begin() + first, ctx.in(0).shape().begin() + last, ctx.out(0).data<int64_t>());
  return {};
}

Status size(KernelContext& ctx) {
  *ctx.out(0).data<int64_t>() = ctx.in(0).numel();
  return {};
}

Status constant_of_shape(KernelContext& ctx) {
  Tensor& out = ctx.out(0);
  const auto bytes = constant_of_shape_bytes(attrs<fb::ConstantOfShapeAttrsT>(ctx.op).value, out.dtype());
  const size_t size = dtype_size(out.dtype());
  auto* dst = static_cast<char*>(out.raw());
  const int64_t grain = kMinBytesPerTask / static_cast<int64_t>(size);
  ctx.pool->parallel_for(out.numel(), grain, [&](int64_t begin, int64_t end) {
    fill_elements(dst + begin * static_cast<int64_t>(size), bytes.data(), size, end - begin);
  });
  return {};
}

template <class T, class Step>
void fill_range(T* out, int64_t n, T start, Step delta, ThreadPool& pool) {
  pool.parallel_for(n, kMinBytesPerTask / static_cast<int64_t>(sizeof(T)), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      if constexpr (std::is_integral_v<T>) {
        // Unsigned arithmetic wraps to the right value where i * delta alone would overflow.
        out[i] = static_cast<T>(static_cast<int64_t>(uint64_t(int64_t(start)) + uint64_t(i) * uint64_t(int64_t(delta))));
      } else {
        out[i] = static_cast<T>(static_cast<double>(start) + static_cast<double>(i) * delta);
      }
    }
  });
}

Status range(KernelContext& ctx) {
  const Tensor& start = ctx.in(0);
  const Tensor& delta = ctx.in(2);
  Tensor& out = ctx.out(0);
  auto length = range_length(start, ctx.in(1), delta);
  if (!length.ok()) return ctx.fail(length.status().message());
  if (*length != out.numel()) return ctx.fail("output holds " + std::to_string(out.numel()) + " elements, not " + std::to_string(*length));
  switch (out.dtype()) {
    case DType::F32: fill_range(out.data<float>(), *length, *start.data<float>(), scalar_as_double(delta), *ctx.pool); break;
    case DType::F64: fill_range(out.data<double>(), *length, *start.data<double>(), scalar_as_double(delta), *ctx.pool); break;
    case DType::I32: fill_range(out.data<int32_t>(), *length, *start.data<int32_t>(), scalar_as_int(delta), *ctx.pool); break;
    case DType::I64: fill_range(out.data<int64_t>(), *length, *start.data<int64_t>(), scalar_as_int(delta), *ctx.pool); break;
    default: return ctx.fail(std::string("unsupported dtype ") + dtype_name(out.dtype()));
  }
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(Shape, mote::cpu::shape);
MOTE_CPU_KERNEL(Size, mote::cpu::size);
MOTE_CPU_KERNEL(ConstantOfShape, mote::cpu::constant_of_shape);
MOTE_CPU_KERNEL(Range, mote::cpu::range);
