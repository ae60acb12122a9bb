// Optimised CPU kernels of the unary elementwise ops: float ops run the
// vectorised loops of unary_simd over chunks of the tensor in parallel; the
// integer forms (Abs, Neg, Sign, Clip) and Not are plain loops the
// compiler vectorises, as they only appear in small index computations.
#include <limits>

#include "runtime/core/kernel.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/cpu/unary_simd.hpp"
#include "runtime/ops/integer_math.hpp"
#include "runtime/ops/unary.hpp"

namespace mote::cpu {
namespace {

// Elements per parallel task: a chunk should take a few microseconds, well
// above the cost of handing it to another thread.
constexpr int64_t kCheapGrain = 1 << 14;
constexpr int64_t kTranscendentalGrain = 1 << 11;

Status unsupported_dtype(KernelContext& ctx, DType dtype) {
  return ctx.fail(std::string("unsupported dtype ") + dtype_name(dtype));
}

Status run_f32(KernelContext& ctx, UnaryFn fn, const UnaryParams& params) {
  if (ctx.in(0).dtype() != DType::F32) return unsupported_dtype(ctx, ctx.in(0).dtype());
  const float* x = ctx.in(0).data<float>();
  float* y = ctx.out(0).data<float>();
  const int64_t grain = unary_is_transcendental(fn) ? kTranscendentalGrain : kCheapGrain;
  ctx.pool->parallel_for(ctx.in(0).numel(), grain,
                         [&](int64_t begin, int64_t end) { unary_f32(fn, params, x + begin, y + begin, end - begin); });
  return {};
}

template <UnaryFn kFn>
Status float_op(KernelContext& ctx) {
  const ActivationParams a = activation_params(ctx.op);
  UnaryParams p;
  p.alpha = a.alpha;
  p.beta = a.beta;
  p.gamma = a.gamma;
  return run_f32(ctx, kFn, p);
}

Status gelu(KernelContext& ctx) {
  return run_f32(ctx, activation_params(ctx.op).approximate_tanh ? UnaryFn::kGeluTanh : UnaryFn::kGeluErf, {});
}

template <class T, class F>
void map_integers(KernelContext& ctx, F f) {
  const T* x = ctx.in(0).data<T>();
  T* y = ctx.out(0).data<T>();
  ctx.pool->parallel_for(ctx.in(0).numel(), kCheapGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) y[i] = f(x[i]);
  });
}

// The float form through the SIMD loops, the integer forms through f.
template <UnaryFn kFn, class F>
Status signed_op(KernelContext& ctx, F integer_fn) {
  switch (ctx.in(0).dtype()) {
    case DType::F32: return run_f32(ctx, kFn, {});
    case DType::I32: map_integers<int32_t>(ctx, integer_fn); return {};
    case DType::I64: map_integers<int64_t>(ctx, integer_fn); return {};
    default: return unsupported_dtype(ctx, ctx.in(0).dtype());
  }
}

Status abs(KernelContext& ctx) {
  return signed_op<UnaryFn::kAbs>(ctx, [](auto v) { return v < 0 ? wrapping_negate(v) : v; });
}
Status neg(KernelContext& ctx) {
  return signed_op<UnaryFn::kNeg>(ctx, [](auto v) { return wrapping_negate(v); });
}
Status sign(KernelContext& ctx) {
  return signed_op<UnaryFn::kSign>(ctx, [](auto v) { return static_cast<decltype(v)>((v > 0) - (v < 0)); });
}

template <class T>
T clip_bound(KernelContext& ctx, size_t input, T absent) {
  return ctx.has_input(input) ? ctx.in(input).data<T>()[0] : absent;
}

Status clip(KernelContext& ctx) {
  const DType dtype = ctx.in(0).dtype();
  for (size_t i = 1; i < 3; ++i) {
    if (ctx.has_input(i) && (ctx.in(i).dtype() != dtype || ctx.in(i).numel() != 1)) {
      return ctx.fail("min and max must be one value of the input's dtype");
    }
  }
  auto clip_integers = [&](auto type_tag) {
    using T = decltype(type_tag);
    const T lo = clip_bound<T>(ctx, 1, std::numeric_limits<T>::lowest());
    const T hi = clip_bound<T>(ctx, 2, std::numeric_limits<T>::max());
    // min(max(v, lo), hi): lo > hi gives hi, as ONNX specifies.
    map_integers<T>(ctx, [&](T v) {
      const T raised = v < lo ? lo : v;
      return hi < raised ? hi : raised;
    });
  };
  switch (dtype) {
    case DType::F32: {
      UnaryParams p;
      p.lo = clip_bound<float>(ctx, 1, p.lo);
      p.hi = clip_bound<float>(ctx, 2, p.hi);
      return run_f32(ctx, UnaryFn::kClip, p);
    }
    case DType::I32: clip_integers(int32_t{}); return {};
    case DType::I64: clip_integers(int64_t{}); return {};
    case DType::I8: clip_integers(int8_t{}); return {};
    case DType::U8: clip_integers(uint8_t{}); return {};
    default: return unsupported_dtype(ctx, dtype);
  }
}

Status logical_not(KernelContext& ctx) {
  if (ctx.in(0).dtype() != DType::Bool) return unsupported_dtype(ctx, ctx.in(0).dtype());
  const bool* x = ctx.in(0).data<bool>();
  bool* y = ctx.out(0).data<bool>();
  ctx.pool->parallel_for(ctx.in(0).numel(), kCheapGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) y[i] = !x[i];
  });
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(Sqrt, mote::cpu::float_op<mote::cpu::UnaryFn::kSqrt>);
MOTE_CPU_KERNEL(Exp, mote::cpu::float_op<mote::cpu::UnaryFn::kExp>);
MOTE_CPU_KERNEL(Log, mote::cpu::float_op<mote::cpu::UnaryFn::kLog>);
MOTE_CPU_KERNEL(Abs, mote::cpu::abs);
MOTE_CPU_KERNEL(Neg, mote::cpu::neg);
MOTE_CPU_KERNEL(Reciprocal, mote::cpu::float_op<mote::cpu::UnaryFn::kReciprocal>);
MOTE_CPU_KERNEL(Relu, mote::cpu::float_op<mote::cpu::UnaryFn::kRelu>);
MOTE_CPU_KERNEL(LeakyRelu, mote::cpu::float_op<mote::cpu::UnaryFn::kLeakyRelu>);
MOTE_CPU_KERNEL(Sigmoid, mote::cpu::float_op<mote::cpu::UnaryFn::kSigmoid>);
MOTE_CPU_KERNEL(Tanh, mote::cpu::float_op<mote::cpu::UnaryFn::kTanh>);
MOTE_CPU_KERNEL(HardSigmoid, mote::cpu::float_op<mote::cpu::UnaryFn::kHardSigmoid>);
MOTE_CPU_KERNEL(HardSwish, mote::cpu::float_op<mote::cpu::UnaryFn::kHardSwish>);
MOTE_CPU_KERNEL(Elu, mote::cpu::float_op<mote::cpu::UnaryFn::kElu>);
MOTE_CPU_KERNEL(Selu, mote::cpu::float_op<mote::cpu::UnaryFn::kSelu>);
MOTE_CPU_KERNEL(Gelu, mote::cpu::gelu);
MOTE_CPU_KERNEL(Erf, mote::cpu::float_op<mote::cpu::UnaryFn::kErf>);
MOTE_CPU_KERNEL(Softplus, mote::cpu::float_op<mote::cpu::UnaryFn::kSoftplus>);
MOTE_CPU_KERNEL(Sin, mote::cpu::float_op<mote::cpu::UnaryFn::kSin>);
MOTE_CPU_KERNEL(Cos, mote::cpu::float_op<mote::cpu::UnaryFn::kCos>);
MOTE_CPU_KERNEL(Floor, mote::cpu::float_op<mote::cpu::UnaryFn::kFloor>);
MOTE_CPU_KERNEL(Ceil, mote::cpu::float_op<mote::cpu::UnaryFn::kCeil>);
MOTE_CPU_KERNEL(Round, mote::cpu::float_op<mote::cpu::UnaryFn::kRound>);
MOTE_CPU_KERNEL(Sign, mote::cpu::sign);
MOTE_CPU_KERNEL(Clip, mote::cpu::clip);
MOTE_CPU_KERNEL(Not, mote::cpu::logical_not);
