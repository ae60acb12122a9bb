// Reference QuantizeLinear and DequantizeLinear; the CPU backend runs them
// too. Quantising divides in x's float type, rounds half to even (ONNX's
// rounding, numpy's rint) and saturates.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/ops/quantize.hpp"

namespace mote::reference {
namespace {

// Element i of an i8, u8 or i32 tensor, or 0 for an absent one.
int64_t integer_at(const Tensor* t, int64_t i) {
  if (!t) return 0;
  switch (t->dtype()) {
    case DType::I8: return t->data<int8_t>()[i];
    case DType::U8: return t->data<uint8_t>()[i];
    case DType::I32: return t->data<int32_t>()[i];
    default: return 0;
  }
}

template <class F, class Q>
void quantize_typed(const Tensor& x, const Tensor& scale, const Tensor* zero, const QuantParamIndex& param, Tensor& y) {
  constexpr double lo = std::numeric_limits<Q>::min(), hi = std::numeric_limits<Q>::max();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t p = param(i);
    const F scaled = x.data<F>()[i] / scale.data<F>()[p];
    double q = std::nearbyint(static_cast<double>(scaled)) + static_cast<double>(integer_at(zero, p));
    if (std::isnan(q)) q = 0.0;
    y.data<Q>()[i] = static_cast<Q>(std::clamp(q, lo, hi));
  }
}

template <class F>
Status quantize_float(KernelContext& ctx, const QuantParamIndex& param) {
  const Tensor* zero = ctx.has_input(2) ? &ctx.in(2) : nullptr;
  switch (ctx.out(0).dtype()) {
    case DType::I8: quantize_typed<F, int8_t>(ctx.in(0), ctx.in(1), zero, param, ctx.out(0)); return {};
    case DType::U8: quantize_typed<F, uint8_t>(ctx.in(0), ctx.in(1), zero, param, ctx.out(0)); return {};
    default: return ctx.fail(std::string("unsupported output dtype ") + dtype_name(ctx.out(0).dtype()));
  }
}

Result<QuantParamIndex> param_index(KernelContext& ctx) {
  const auto& a = attrs<fb::QuantizeAttrsT>(ctx.op);
  return QuantParamIndex::make(ctx.in(0).shape(), ctx.in(1).shape(), a.axis, a.block_size);
}

Status quantize(KernelContext& ctx) {
  auto param = param_index(ctx);
  if (!param.ok()) return ctx.fail(param.status().message());
  switch (ctx.in(0).dtype()) {
    case DType::F32: return quantize_float<float>(ctx, *param);
    case DType::F64: return quantize_float<double>(ctx, *param);
    default: return ctx.fail(std::string("unsupported dtype ") + dtype_name(ctx.in(0).dtype()));
  }
}

template <class F>
void dequantize_typed(KernelContext& ctx, const QuantParamIndex& param) {
  const Tensor* zero = ctx.has_input(2) ? &ctx.in(2) : nullptr;
  const F* scale = ctx.in(1).data<F>();
  F* y = ctx.out(0).data<F>();
  for (int64_t i = 0; i < ctx.in(0).numel(); ++i) {
    const int64_t p = param(i);
    y[i] = static_cast<F>(static_cast<F>(integer_at(&ctx.in(0), i) - integer_at(zero, p)) * scale[p]);
  }
}

Status dequantize(KernelContext& ctx) {
  auto param = param_index(ctx);
  if (!param.ok()) return ctx.fail(param.status().message());
  switch (ctx.in(1).dtype()) {
    case DType::F32: dequantize_typed<float>(ctx, *param); return {};
    case DType::F64: dequantize_typed<double>(ctx, *param); return {};
    default: return ctx.fail(std::string("unsupported scale dtype ") + dtype_name(ctx.in(1).dtype()));
  }
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(QuantizeLinear, mote::reference::quantize);
MOTE_REF_KERNEL(DequantizeLinear, mote::reference::dequantize);
