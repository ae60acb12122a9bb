// SIMD bodies of cast_simd.hpp. Highway's foreach_target.h compiles this file
// once per instruction set; the HWY_ONCE section at the end holds the plain
// C++ lookup that hands out the loops of the best one.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/cast_simd.cpp"
#include "hwy/foreach_target.h"  // must come before highway.h

#include <algorithm>

#include "hwy/highway.h"
#include "runtime/cpu/cast_simd.hpp"
#include "runtime/ops/cast.hpp"

// Highway 1.0's f16 conversions are exact instructions on x86 with F16C (the
// AVX2 and AVX-512 targets) and on Arm, but an emulation elsewhere that
// truncates instead of rounding and mishandles NaN and overflow; those
// targets convert f16 with runtime/core/half.hpp instead.
#undef MOTE_CAST_NATIVE_F16
#if (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)) || \
    (HWY_ARCH_ARM_A64 && (HWY_TARGET == HWY_NEON || HWY_TARGET == HWY_SVE))
#define MOTE_CAST_NATIVE_F16 1
#else
#define MOTE_CAST_NATIVE_F16 0
#endif

HWY_BEFORE_NAMESPACE();
namespace mote::cpu::cast_simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// The element-by-element definition; compiled for this target, so the
// compiler vectorises the simple pairs (integer widening and narrowing...).
template <class From, class To>
HWY_INLINE void ConvertScalar(const From* x, To* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = convert_element<To>(x[i]);
}

template <class From, class To>
void ConvertRow(const void* in, void* out, int64_t n) {
  ConvertScalar(static_cast<const From*>(in), static_cast<To*>(out), static_cast<size_t>(n));
}

// out = f(in) vector by vector; DIn and DOut have the same lane count. The
// tail goes through full vectors on the stack.
template <class DIn, class DOut, class F>
HWY_INLINE void ConvertVectors(DIn din, DOut dout, const hn::TFromD<DIn>* in, hn::TFromD<DOut>* out, size_t n, F f) {
  using TIn = hn::TFromD<DIn>;
  using TOut = hn::TFromD<DOut>;
  const size_t lanes = hn::Lanes(din);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(f(hn::LoadU(din, in + i)), dout, out + i);
  if (i < n) {
    HWY_ALIGN TIn in_tail[hn::MaxLanes(din)] = {};
    HWY_ALIGN TOut out_tail[hn::MaxLanes(dout)];
    std::copy(in + i, in + n, in_tail);
    hn::Store(f(hn::Load(din, in_tail)), dout, out_tail);
    std::copy(out_tail, out_tail + (n - i), out + i);
  }
}

template <>
void ConvertRow<float, HalfBits>(const void* in, void* out, int64_t n) {
#if MOTE_CAST_NATIVE_F16
  const D d;
  const hn::Rebind<hwy::float16_t, D> d16;
  ConvertVectors(d, d16, static_cast<const float*>(in), static_cast<hwy::float16_t*>(out), static_cast<size_t>(n),
                 [d16](V v) { return hn::DemoteTo(d16, v); });
#else
  ConvertScalar(static_cast<const float*>(in), static_cast<HalfBits*>(out), static_cast<size_t>(n));
#endif
}

template <>
void ConvertRow<HalfBits, float>(const void* in, void* out, int64_t n) {
#if MOTE_CAST_NATIVE_F16
  const D d;
  const hn::Rebind<hwy::float16_t, D> d16;
  ConvertVectors(d16, d, static_cast<const hwy::float16_t*>(in), static_cast<float*>(out), static_cast<size_t>(n),
                 [d](hn::Vec<decltype(d16)> v) { return hn::PromoteTo(d, v); });
#else
  ConvertScalar(static_cast<const HalfBits*>(in), static_cast<float*>(out), static_cast<size_t>(n));
#endif
}

// Truncation toward zero; NaN is zeroed first, and hn::ConvertTo saturates.
template <>
void ConvertRow<float, int32_t>(const void* in, void* out, int64_t n) {
  const hn::RebindToSigned<D> di;
  ConvertVectors(D(), di, static_cast<const float*>(in), static_cast<int32_t*>(out), static_cast<size_t>(n),
                 [di](V v) { return hn::ConvertTo(di, hn::IfThenZeroElse(hn::IsNaN(v), v)); });
}

template <>
void ConvertRow<int32_t, float>(const void* in, void* out, int64_t n) {
  const D d;
  ConvertVectors(hn::RebindToSigned<D>(), d, static_cast<const int32_t*>(in), static_cast<float*>(out),
                 static_cast<size_t>(n), [d](hn::Vec<hn::RebindToSigned<D>> v) { return hn::ConvertTo(d, v); });
}

// x != 0 (true for NaN) as bool bytes.
template <>
void ConvertRow<float, bool>(const void* in, void* out, int64_t n) {
  const D d;
  const hn::Rebind<uint8_t, D> d8;
  const hn::RebindToSigned<D> di;
  ConvertVectors(d, d8, static_cast<const float*>(in), static_cast<uint8_t*>(out), static_cast<size_t>(n),
                 [d, d8, di](V v) {
                   // Not(Eq), not Ne: x86's ordered not-equal is false for NaN.
                   const auto nonzero = hn::RebindMask(di, hn::Not(hn::Eq(v, hn::Zero(d))));
                   return hn::DemoteTo(d8, hn::IfThenElseZero(nonzero, hn::Set(di, 1)));
                 });
}

template <>
void ConvertRow<bool, float>(const void* in, void* out, int64_t n) {
  const D d;
  const hn::Rebind<uint8_t, D> d8;
  const hn::RebindToSigned<D> di;
  ConvertVectors(d8, d, static_cast<const uint8_t*>(in), static_cast<float*>(out), static_cast<size_t>(n),
                 [d, di](hn::Vec<decltype(d8)> v) {
                   const auto set = hn::RebindMask(d, hn::Ne(hn::PromoteTo(di, v), hn::Zero(di)));
                   return hn::IfThenElseZero(set, hn::Set(d, 1.0f));
                 });
}

// Calls visit(T{}) with the element type of `dtype` (HalfBits for f16).
template <class Visit>
CastRowFn VisitElementType(DType dtype, Visit visit) {
  switch (dtype) {
    case DType::F32: return visit(float{});
    case DType::F16: return visit(HalfBits{});
    case DType::I8: return visit(int8_t{});
    case DType::U8: return visit(uint8_t{});
    case DType::I32: return visit(int32_t{});
    case DType::I64: return visit(int64_t{});
    case DType::Bool: return visit(bool{});
    case DType::F64: return visit(double{});
  }
  return nullptr;
}

CastRowFn GetCastRowFn(DType from, DType to) {
  return VisitElementType(from, [to](auto x) {
    return VisitElementType(to, [](auto y) -> CastRowFn { return &ConvertRow<decltype(x), decltype(y)>; });
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu::cast_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu {
namespace cast_simd {
HWY_EXPORT(GetCastRowFn);
}  // namespace cast_simd

CastRowFn cast_row_fn(DType from, DType to) {
  using namespace cast_simd;  // see binary_simd.cpp
  return HWY_DYNAMIC_DISPATCH(GetCastRowFn)(from, to);
}

}  // namespace mote::cpu
#endif  // HWY_ONCE
