// QuantizeLinear and DequantizeLinear with one scale and zero point for the
// whole f32 tensor (what --quantize int8 writes around int8 ops), and
// DynamicQuantizeLinear (its range, then the same quantisation): plain
// loops the compiler vectorises, split over the threads. Per-axis and
// blocked parameters, and f64, take the reference kernels.
// The loops are compiled once per instruction set (Highway's
// foreach_target.h) and the best one picked at run time: compiled for the
// baseline x86-64 alone, quantising MobileNetV2's 224x224 input divided
// four floats at a time and took 0.066 ms, 3 % of the int8 model.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/quantize.cpp"
#include "runtime/ops/quantize.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "hwy/foreach_target.h"  // must come before highway.h
#include "hwy/highway.h"
#include "runtime/core/kernel.hpp"
#include "runtime/core/registry.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/dynamic_quantize.hpp"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu {
namespace HWY_NAMESPACE {

// Rounds half to even, saturates, NaN -> 0 (as the reference). Clamping
// before rounding gives the same result (the bounds are integers) and keeps
// values small enough for the 1.5 * 2^23 trick, which rounds in the default
// mode without a libm call, so the loop vectorises.
template <class Q>
void quantize_range(const float* x, float scale, int32_t zero, Q* y, int64_t n) {
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23
  const float lo = static_cast<float>(int32_t{std::numeric_limits<Q>::min()} - zero);
  const float hi = static_cast<float>(int32_t{std::numeric_limits<Q>::max()} - zero);
  const float nan_value = static_cast<float>(-zero);
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i] / scale;
    v = v == v ? v : nan_value;
    v = std::min(std::max(v, lo), hi);
    v = (v + kRound) - kRound;
    y[i] = static_cast<Q>(static_cast<int32_t>(v) + zero);
  }
}

template <class Q>
void dequantize_range(const Q* x, float scale, int32_t zero, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(int32_t{x[i]} - zero) * scale;
}

namespace hn = hwy::HWY_NAMESPACE;

// The range of n floats, NaNs left out (each replaced by the running bound
// before Min and Max, whose NaN handling differs between targets); lo > hi
// when there is no other value. Vectors by hand: GCC leaves a float min/max
// reduction scalar unless NaNs are ruled out (-ffinite-math-only), and it
// took twice the quantisation's time.
void MinMax(const float* x, int64_t n, float* lo_out, float* hi_out) {
  const hn::ScalableTag<float> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  auto lo = hn::Set(d, std::numeric_limits<float>::infinity()), hi = hn::Neg(lo);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(d, x + i);
    const auto is_number = hn::Eq(v, v);
    lo = hn::Min(lo, hn::IfThenElse(is_number, v, lo));
    hi = hn::Max(hi, hn::IfThenElse(is_number, v, hi));
  }
  float l = hn::GetLane(hn::MinOfLanes(d, lo)), h = hn::GetLane(hn::MaxOfLanes(d, hi));
  for (; i < n; ++i) {
    if (x[i] != x[i]) continue;
    l = std::min(l, x[i]);
    h = std::max(h, x[i]);
  }
  *lo_out = l;
  *hi_out = h;
}

void QuantizeU8(const float* x, float scale, int32_t zero, uint8_t* y, int64_t n) {
  quantize_range(x, scale, zero, y, n);
}
void QuantizeI8(const float* x, float scale, int32_t zero, int8_t* y, int64_t n) {
  quantize_range(x, scale, zero, y, n);
}
void DequantizeU8(const uint8_t* x, float scale, int32_t zero, float* y, int64_t n) {
  dequantize_range(x, scale, zero, y, n);
}
void DequantizeI8(const int8_t* x, float scale, int32_t zero, float* y, int64_t n) {
  dequantize_range(x, scale, zero, y, n);
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu {
namespace {

HWY_EXPORT(MinMax);
HWY_EXPORT(QuantizeU8);
HWY_EXPORT(QuantizeI8);
HWY_EXPORT(DequantizeU8);
HWY_EXPORT(DequantizeI8);

constexpr int64_t kGrain = 16384;

// Per tensor: one scale, at most one zero point, f32 data.
bool per_tensor_f32(const KernelContext& ctx, size_t float_input) {
  if (ctx.in(float_input).dtype() != DType::F32 || ctx.in(1).dtype() != DType::F32) return false;
  if (ctx.in(1).numel() != 1) return false;
  return !ctx.has_input(2) || ctx.in(2).numel() == 1;
}

int32_t zero_point(const KernelContext& ctx) { return ctx.has_input(2) ? int8_element(ctx.in(2), 0) : 0; }

Status quantize_run(KernelContext& ctx) {
  const DType out = ctx.out(0).dtype();
  if (!per_tensor_f32(ctx, 0) || (out != DType::U8 && out != DType::I8)) {
    return find_reference_kernel(fb::OpType::QuantizeLinear)->run(ctx);
  }
  const float* x = ctx.in(0).data<float>();
  const float scale = ctx.in(1).data<float>()[0];
  const int32_t zero = zero_point(ctx);
  void* y = ctx.out(0).raw();
  ctx.pool->parallel_for(ctx.in(0).numel(), kGrain, [&](int64_t begin, int64_t end) {
    if (out == DType::U8) {
      HWY_DYNAMIC_DISPATCH(QuantizeU8)(x + begin, scale, zero, static_cast<uint8_t*>(y) + begin, end - begin);
    } else {
      HWY_DYNAMIC_DISPATCH(QuantizeI8)(x + begin, scale, zero, static_cast<int8_t*>(y) + begin, end - begin);
    }
  });
  return {};
}

Status dynamic_quantize_run(KernelContext& ctx) {
  const float* x = ctx.in(0).data<float>();
  const int64_t n = ctx.in(0).numel();
  // The range in parts, one per task, then combined.
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(ctx.pool->size(), n / kGrain));
  std::vector<float> lo(static_cast<size_t>(parts)), hi(static_cast<size_t>(parts));
  ctx.pool->parallel_for(parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) {
      const int64_t first = n * part / parts, last = n * (part + 1) / parts;
      HWY_DYNAMIC_DISPATCH(MinMax)
      (x + first, last - first, &lo[static_cast<size_t>(part)], &hi[static_cast<size_t>(part)]);
    }
  });
  const DynamicQuantizeParams p =
      dynamic_quantize_params(*std::min_element(lo.begin(), lo.end()), *std::max_element(hi.begin(), hi.end()));
  uint8_t* y = ctx.out(0).data<uint8_t>();
  ctx.pool->parallel_for(n, kGrain, [&](int64_t begin, int64_t end) {
    HWY_DYNAMIC_DISPATCH(QuantizeU8)(x + begin, p.scale, p.zero, y + begin, end - begin);
  });
  ctx.out(1).data<float>()[0] = p.scale;
  ctx.out(2).data<uint8_t>()[0] = static_cast<uint8_t>(p.zero);
  return {};
}

Status dequantize_run(KernelContext& ctx) {
  const DType in = ctx.in(0).dtype();
  if (!per_tensor_f32(ctx, 1) || (in != DType::U8 && in != DType::I8)) {
    return find_reference_kernel(fb::OpType::DequantizeLinear)->run(ctx);
  }
  const float scale = ctx.in(1).data<float>()[0];
  const int32_t zero = zero_point(ctx);
  float* y = ctx.out(0).data<float>();
  ctx.pool->parallel_for(ctx.in(0).numel(), kGrain, [&](int64_t begin, int64_t end) {
    if (in == DType::U8) {
      HWY_DYNAMIC_DISPATCH(DequantizeU8)(ctx.in(0).data<uint8_t>() + begin, scale, zero, y + begin, end - begin);
    } else {
      HWY_DYNAMIC_DISPATCH(DequantizeI8)(ctx.in(0).data<int8_t>() + begin, scale, zero, y + begin, end - begin);
    }
  });
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(QuantizeLinear, mote::cpu::quantize_run);
MOTE_CPU_KERNEL(DequantizeLinear, mote::cpu::dequantize_run);
MOTE_CPU_KERNEL(DynamicQuantizeLinear, mote::cpu::dynamic_quantize_run);
#endif  // HWY_ONCE
