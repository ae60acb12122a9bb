// Optimised QLinearAdd and QLinearMul: the broadcast plan of the float
// binary ops (broadcast.hpp) cuts the output into rows, and a vectorised
// row function computes each in f32 exactly as the QDQ chain it replaces
// (DequantizeLinear, the float op, QuantizeLinear) rounds:
//   ra = (a - A_zero) * A_scale, rb = (b - B_zero) * B_scale
//   v = (ra + rb) / C_scale, or ra * rb / C_scale
// clamped to C's type range narrowed by the fused Relu or Clip, rounded
// half to even, plus C's zero point. So a folded QDQ Add equals
// onnxruntime's run of the chain (check_models.sh); a form with the scales
// premultiplied was one quantum off it at near-ties. The reference computes
// in double; a near-tie may round the other way there (one quantum).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/qlinear_binary.cpp"
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "hwy/foreach_target.h"  // must come before highway.h
#include "hwy/highway.h"
#include "runtime/core/kernel.hpp"
#include "runtime/cpu/broadcast.hpp"
#include "runtime/cpu/qoutput_range.hpp"
#include "runtime/ops/qlinear_elementwise.hpp"

#ifndef MOTE_CPU_QLINEAR_BINARY_ROW_
#define MOTE_CPU_QLINEAR_BINARY_ROW_
namespace mote::cpu {
// One op's constants, shared by every row.
struct QBinaryRow {
  bool multiply = false;
  DType dtype = DType::U8;                               // A's, B's and C's
  float a_zero = 0, a_scale = 0, b_zero = 0, b_scale = 0, c_scale = 0;
  float lo = 0, hi = 0;                                  // C's range relative to its zero point
  int32_t c_zero = 0;
};
}  // namespace mote::cpu
#endif

HWY_BEFORE_NAMESPACE();
namespace mote::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Rounds half to even without libm (the bounds keep |v| small).
HWY_INLINE float round_even(float v) {
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23
  return (v + kRound) - kRound;
}

template <bool kMultiply>
HWY_INLINE float value_of(float a, float b, const QBinaryRow& r) {
  const float ra = (a - r.a_zero) * r.a_scale, rb = (b - r.b_zero) * r.b_scale;
  return (kMultiply ? ra * rb : ra + rb) / r.c_scale;
}

// y[i] from a[i * kStepA] and b[i * kStepB] (a step of 0 repeats one
// element: a scalar, or a channel's value along a row).
template <class T, bool kMultiply, int kStepA, int kStepB>
void row(const T* HWY_RESTRICT a, const T* HWY_RESTRICT b, T* HWY_RESTRICT y, int64_t n, const QBinaryRow& r) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<int32_t, decltype(df)> di;
  const hn::Rebind<T, decltype(df)> dt;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  const auto load = [&](const T* p, int64_t i, auto step) {
    if constexpr (decltype(step)::value == 0) {
      return hn::Set(df, static_cast<float>(p[0]));
    } else {
      return hn::ConvertTo(df, hn::PromoteTo(di, hn::LoadU(dt, p + i)));
    }
  };
  const auto lo = hn::Set(df, r.lo), hi = hn::Set(df, r.hi);
  const auto zero = hn::Set(di, r.c_zero);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto va = load(a, i, std::integral_constant<int, kStepA>{});
    const auto vb = load(b, i, std::integral_constant<int, kStepB>{});
    const auto ra = hn::Mul(hn::Sub(va, hn::Set(df, r.a_zero)), hn::Set(df, r.a_scale));
    const auto rb = hn::Mul(hn::Sub(vb, hn::Set(df, r.b_zero)), hn::Set(df, r.b_scale));
    auto v = hn::Div(kMultiply ? hn::Mul(ra, rb) : hn::Add(ra, rb), hn::Set(df, r.c_scale));
    v = hn::Min(hn::Max(v, lo), hi);
    hn::StoreU(hn::DemoteTo(dt, hn::Add(hn::NearestInt(v), zero)), dt, y + i);
  }
  for (; i < n; ++i) {
    float v = value_of<kMultiply>(static_cast<float>(a[i * kStepA]), static_cast<float>(b[i * kStepB]), r);
    v = std::min(std::max(v, r.lo), r.hi);
    y[i] = static_cast<T>(static_cast<int32_t>(round_even(v)) + r.c_zero);
  }
}

template <class T, bool kMultiply>
void typed_row(const void* a, int64_t a_step, const void* b, int64_t b_step, void* y, int64_t n,
               const QBinaryRow& r) {
  const auto* pa = static_cast<const T*>(a);
  const auto* pb = static_cast<const T*>(b);
  auto* py = static_cast<T*>(y);
  if (a_step && b_step) return row<T, kMultiply, 1, 1>(pa, pb, py, n, r);
  if (a_step) return row<T, kMultiply, 1, 0>(pa, pb, py, n, r);
  if (b_step) return row<T, kMultiply, 0, 1>(pa, pb, py, n, r);
  return row<T, kMultiply, 0, 0>(pa, pb, py, n, r);
}

void QLinearBinaryRow(const void* a, int64_t a_step, const void* b, int64_t b_step, void* y, int64_t n,
                      const QBinaryRow& r) {
  if (r.dtype == DType::I8) {
    return r.multiply ? typed_row<int8_t, true>(a, a_step, b, b_step, y, n, r)
                      : typed_row<int8_t, false>(a, a_step, b, b_step, y, n, r);
  }
  return r.multiply ? typed_row<uint8_t, true>(a, a_step, b, b_step, y, n, r)
                    : typed_row<uint8_t, false>(a, a_step, b, b_step, y, n, r);
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "runtime/core/registry.hpp"

namespace mote::cpu {
HWY_EXPORT(QLinearBinaryRow);

namespace {

// Output elements per parallel task: a few microseconds of work.
constexpr int64_t kGrain = 1 << 14;

Status qlinear_binary(KernelContext& ctx, bool multiply) {
  auto params = read_qbinary_params(ctx.inputs);
  if (!params.ok()) return ctx.fail(params.status().message());
  const std::array<TensorQuant, 3>& q = *params;
  const Tensor& a = ctx.in(kQBinaryA.data);
  const Tensor& b = ctx.in(kQBinaryB.data);
  Tensor& y = ctx.out(0);
  QRequantize range;
  MOTE_RETURN_IF_ERROR(set_output_range(ctx, y.dtype(), q[2].scale, q[2].zero, range));
  // (The shape function refuses the activations the store would apply.)
  if (range.activation != TileActivation::kNone) return ctx.fail("fuses only Relu and Clip");
  QBinaryRow r;
  r.multiply = multiply;
  r.dtype = y.dtype();
  r.lo = range.lo;
  r.hi = range.hi;
  r.c_zero = q[2].zero;
  r.a_zero = static_cast<float>(q[0].zero);
  r.a_scale = q[0].scale;
  r.b_zero = static_cast<float>(q[1].zero);
  r.b_scale = q[1].scale;
  r.c_scale = q[2].scale;
  const BroadcastPlan plan = plan_broadcast(y.shape(), {a.shape(), b.shape()});
  const auto* pa = static_cast<const int8_t*>(a.raw());  // bytes, whichever 8-bit type
  const auto* pb = static_cast<const int8_t*>(b.raw());
  auto* py = static_cast<int8_t*>(y.raw());
  const int64_t a_step = plan.inner_step(0), b_step = plan.inner_step(1);
  parallel_for_each_segment(*ctx.pool, plan, kGrain, [&](const BroadcastSegment& s) {
    HWY_DYNAMIC_DISPATCH(QLinearBinaryRow)
    (pa + s.offsets[0], a_step, pb + s.offsets[1], b_step, py + s.out_offset, s.length, r);
  });
  return {};
}

Status qlinear_add(KernelContext& ctx) { return qlinear_binary(ctx, false); }
Status qlinear_mul(KernelContext& ctx) { return qlinear_binary(ctx, true); }

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(QLinearAdd, mote::cpu::qlinear_add);
MOTE_CPU_KERNEL(QLinearMul, mote::cpu::qlinear_mul);
#endif  // HWY_ONCE
