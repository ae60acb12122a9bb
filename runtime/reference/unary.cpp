// Reference kernels of the unary elementwise ops: one scalar loop each, no
// tricks, the definition the optimised kernels are tested against. Float ops
// compute in double with <cmath> and round once to the storage type (f32 or
// f64, float_types.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>

#include "runtime/core/kernel.hpp"
#include "runtime/ops/integer_math.hpp"
#include "runtime/ops/unary.hpp"
#include "runtime/reference/float_types.hpp"

namespace mote::reference {
namespace {

Status unsupported_dtype(KernelContext& ctx, DType dtype) {
  return ctx.fail(std::string("unsupported dtype ") + dtype_name(dtype));
}

template <class T, class F>
void map(KernelContext& ctx, F f) {
  const T* x = ctx.in(0).data<T>();
  T* y = ctx.out(0).data<T>();
  for (int64_t i = 0; i < ctx.in(0).numel(); ++i) y[i] = f(x[i]);
}

// f: double -> double, applied to an f32 or f64 tensor.
template <class F>
Status map_float(KernelContext& ctx, F f) {
  const bool known = visit_float_type(ctx.in(0).dtype(), [&](auto type) {
    using T = decltype(type);
    map<T>(ctx, [&](T v) { return static_cast<T>(f(static_cast<double>(v))); });
  });
  return known ? Status{} : unsupported_dtype(ctx, ctx.in(0).dtype());
}

// f: a generic lambda, applied to f32, f64, i32 or i64 in the tensor's own type.
template <class F>
Status map_signed(KernelContext& ctx, F f) {
  switch (ctx.in(0).dtype()) {
    case DType::F32: map<float>(ctx, f); return {};
    case DType::F64: map<double>(ctx, f); return {};
    case DType::I32: map<int32_t>(ctx, f); return {};
    case DType::I64: map<int64_t>(ctx, f); return {};
    default: return unsupported_dtype(ctx, ctx.in(0).dtype());
  }
}

// -v; the most negative integer negates to itself (integer_math.hpp).
template <class T>
T negate(T v) {
  if constexpr (std::is_integral_v<T>) {
    return wrapping_negate(v);
  } else {
    return -v;
  }
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

Status sqrt(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::sqrt(v); }); }
Status exp(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::exp(v); }); }
Status log(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::log(v); }); }
Status reciprocal(KernelContext& ctx) { return map_float(ctx, [](double v) { return 1.0 / v; }); }
Status sigmoid(KernelContext& ctx) { return map_float(ctx, [](double v) { return sigmoid(v); }); }
Status tanh(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::tanh(v); }); }
Status erf(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::erf(v); }); }
Status sin(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::sin(v); }); }
Status cos(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::cos(v); }); }
Status floor(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::floor(v); }); }
Status ceil(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::ceil(v); }); }
// nearbyint rounds in the default mode, to nearest with ties to even (ONNX).
Status round(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::nearbyint(v); }); }

// ln(1 + e^x) written as max(x, 0) + ln(1 + e^-|x|), which cannot overflow.
Status softplus(KernelContext& ctx) {
  return map_float(ctx, [](double v) { return std::max(v, 0.0) + std::log1p(std::exp(-std::fabs(v))); });
}

Status leaky_relu(KernelContext& ctx) {
  const double alpha = activation_params(ctx.op).alpha;
  return map_float(ctx, [&](double v) { return v < 0.0 ? alpha * v : v; });
}

// max(0, min(1, v)) as numpy's clip computes it: NaN stays NaN.
double clamp_to_unit(double v) { return v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v; }

Status hard_sigmoid(KernelContext& ctx) {
  const ActivationParams p = activation_params(ctx.op);
  return map_float(ctx, [&](double v) { return clamp_to_unit(double{p.alpha} * v + p.beta); });
}

Status hard_swish(KernelContext& ctx) {
  return map_float(ctx, [](double v) { return v * clamp_to_unit(v / 6.0 + 0.5); });
}

Status elu(KernelContext& ctx) {
  const double alpha = activation_params(ctx.op).alpha;
  return map_float(ctx, [&](double v) { return v > 0.0 ? v : alpha * std::expm1(v); });
}

Status selu(KernelContext& ctx) {
  const ActivationParams p = activation_params(ctx.op);
  // gamma * (alpha * e^x - alpha) for x <= 0, with expm1 for accuracy near 0.
  return map_float(ctx, [&](double v) { return double{p.gamma} * (v > 0.0 ? v : double{p.alpha} * std::expm1(v)); });
}

Status gelu(KernelContext& ctx) {
  if (activation_params(ctx.op).approximate_tanh) {
    const double k = std::sqrt(2.0 / std::numbers::pi);
    return map_float(ctx, [&](double v) { return 0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v))); });
  }
  return map_float(ctx, [](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); });
}

// NaN stays NaN, as with np.maximum(x, 0).
Status relu(KernelContext& ctx) { return map_float(ctx, [](double v) { return v < 0.0 ? 0.0 : v; }); }

Status abs(KernelContext& ctx) {
  return map_signed(ctx, [](auto v) { return v < 0 ? negate(v) : v; });
}

Status neg(KernelContext& ctx) {
  return map_signed(ctx, [](auto v) { return negate(v); });
}

// -1, 0 or 1; zeros and NaN map to themselves.
Status sign(KernelContext& ctx) {
  return map_signed(ctx, [](auto v) {
    using T = decltype(v);
    return v > 0 ? T{1} : v < 0 ? T{-1} : v;
  });
}

template <class T>
Status clip_typed(KernelContext& ctx) {
  // An absent bound does not bound (infinities stay infinite).
  using Limits = std::numeric_limits<T>;
  const T lowest = Limits::has_infinity ? -Limits::infinity() : Limits::lowest();
  const T highest = Limits::has_infinity ? Limits::infinity() : Limits::max();
  const T lo = ctx.has_input(1) ? ctx.in(1).data<T>()[0] : lowest;
  const T hi = ctx.has_input(2) ? ctx.in(2).data<T>()[0] : highest;
  // min(max(x, lo), hi): a NaN input stays NaN, and lo > hi gives hi (ONNX).
  map<T>(ctx, [&](T v) {
    T raised = v < lo ? lo : v;
    return hi < raised ? hi : raised;
  });
  return {};
}

Status clip(KernelContext& ctx) {
  const DType dtype = ctx.in(0).dtype();
  for (size_t i = 1; i < 3; ++i) {
    if (ctx.has_input(i) && (ctx.in(i).dtype() != dtype || ctx.in(i).numel() != 1)) {
      return ctx.fail("min and max must be one value of the input's dtype");
    }
  }
  switch (dtype) {
    case DType::F32: return clip_typed<float>(ctx);
    case DType::F64: return clip_typed<double>(ctx);
    case DType::I32: return clip_typed<int32_t>(ctx);
    case DType::I64: return clip_typed<int64_t>(ctx);
    case DType::I8: return clip_typed<int8_t>(ctx);
    case DType::U8: return clip_typed<uint8_t>(ctx);
    default: return unsupported_dtype(ctx, dtype);
  }
}

// Trigonometric and hyperbolic functions and Softsign (x / (1 + |x|)):
// rarely hot, so the CPU backend runs these reference loops as they are.
Status tan(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::tan(v); }); }
Status asin(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::asin(v); }); }
Status acos(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::acos(v); }); }
Status atan(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::atan(v); }); }
Status sinh(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::sinh(v); }); }
Status cosh(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::cosh(v); }); }
Status asinh(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::asinh(v); }); }
Status acosh(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::acosh(v); }); }
Status atanh(KernelContext& ctx) { return map_float(ctx, [](double v) { return std::atanh(v); }); }
Status softsign(KernelContext& ctx) { return map_float(ctx, [](double v) { return v / (1.0 + std::fabs(v)); }); }

Status bitwise_not(KernelContext& ctx) {
  switch (ctx.in(0).dtype()) {
    case DType::I8: map<int8_t>(ctx, [](int8_t v) { return static_cast<int8_t>(~v); }); return {};
    case DType::U8: map<uint8_t>(ctx, [](uint8_t v) { return static_cast<uint8_t>(~v); }); return {};
    case DType::I32: map<int32_t>(ctx, [](int32_t v) { return ~v; }); return {};
    case DType::I64: map<int64_t>(ctx, [](int64_t v) { return ~v; }); return {};
    default: return unsupported_dtype(ctx, ctx.in(0).dtype());
  }
}

Status logical_not(KernelContext& ctx) {
  if (ctx.in(0).dtype() != DType::Bool) return unsupported_dtype(ctx, ctx.in(0).dtype());
  map<bool>(ctx, [](bool v) { return !v; });
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Sqrt, mote::reference::sqrt);
MOTE_REF_KERNEL(Exp, mote::reference::exp);
MOTE_REF_KERNEL(Log, mote::reference::log);
MOTE_REF_KERNEL(Abs, mote::reference::abs);
MOTE_REF_KERNEL(Neg, mote::reference::neg);
MOTE_REF_KERNEL(Reciprocal, mote::reference::reciprocal);
MOTE_REF_KERNEL(Relu, mote::reference::relu);
MOTE_REF_KERNEL(LeakyRelu, mote::reference::leaky_relu);
MOTE_REF_KERNEL(Sigmoid, mote::reference::sigmoid);
MOTE_REF_KERNEL(Tanh, mote::reference::tanh);
MOTE_REF_KERNEL(HardSigmoid, mote::reference::hard_sigmoid);
MOTE_REF_KERNEL(HardSwish, mote::reference::hard_swish);
MOTE_REF_KERNEL(Elu, mote::reference::elu);
MOTE_REF_KERNEL(Selu, mote::reference::selu);
MOTE_REF_KERNEL(Gelu, mote::reference::gelu);
MOTE_REF_KERNEL(Erf, mote::reference::erf);
MOTE_REF_KERNEL(Softplus, mote::reference::softplus);
MOTE_REF_KERNEL(Sin, mote::reference::sin);
MOTE_REF_KERNEL(Cos, mote::reference::cos);
MOTE_REF_KERNEL(Floor, mote::reference::floor);
MOTE_REF_KERNEL(Ceil, mote::reference::ceil);
MOTE_REF_KERNEL(Round, mote::reference::round);
MOTE_REF_KERNEL(Sign, mote::reference::sign);
MOTE_REF_KERNEL(Clip, mote::reference::clip);
MOTE_REF_KERNEL(Not, mote::reference::logical_not);
MOTE_REF_KERNEL(BitwiseNot, mote::reference::bitwise_not);
MOTE_REF_KERNEL(Tan, mote::reference::tan);
MOTE_REF_KERNEL(Asin, mote::reference::asin);
MOTE_REF_KERNEL(Acos, mote::reference::acos);
MOTE_REF_KERNEL(Atan, mote::reference::atan);
MOTE_REF_KERNEL(Sinh, mote::reference::sinh);
MOTE_REF_KERNEL(Cosh, mote::reference::cosh);
MOTE_REF_KERNEL(Asinh, mote::reference::asinh);
MOTE_REF_KERNEL(Acosh, mote::reference::acosh);
MOTE_REF_KERNEL(Atanh, mote::reference::atanh);
MOTE_REF_KERNEL(Softsign, mote::reference::softsign);
