// SIMD bodies of resize_simd.hpp. Highway's foreach_target.h compiles this
// file once per instruction set; the HWY_ONCE section holds the entry points
// that pick one at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/resize_simd.cpp"
#include "hwy/foreach_target.h"  // must come before highway.h

#include <cstddef>

#include "hwy/highway.h"
#include "runtime/cpu/resize_simd.hpp"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void LerpRows(const float* HWY_RESTRICT a, const float* HWY_RESTRICT b, float w, float* HWY_RESTRICT out,
              int64_t n) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  const auto vw = hn::Set(d, w);
  size_t i = 0;
  for (; i + lanes <= count; i += lanes) {
    const auto va = hn::LoadU(d, a + i);
    hn::StoreU(hn::MulAdd(hn::Sub(hn::LoadU(d, b + i), va), vw, va), d, out + i);
  }
  for (; i < count; ++i) out[i] = a[i] + w * (b[i] - a[i]);
}

void LerpGather(const float* HWY_RESTRICT row, const int32_t* HWY_RESTRICT lower, const int32_t* HWY_RESTRICT upper,
                const float* HWY_RESTRICT w, float* HWY_RESTRICT out, int64_t n) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const size_t lanes = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  size_t j = 0;
  for (; j + lanes <= count; j += lanes) {
    const auto lo = hn::GatherIndex(d, row, hn::LoadU(di, lower + j));
    const auto hi = hn::GatherIndex(d, row, hn::LoadU(di, upper + j));
    hn::StoreU(hn::MulAdd(hn::Sub(hi, lo), hn::LoadU(d, w + j), lo), d, out + j);
  }
  for (; j < count; ++j) out[j] = row[lower[j]] + w[j] * (row[upper[j]] - row[lower[j]]);
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu::simd {

HWY_EXPORT(LerpRows);
HWY_EXPORT(LerpGather);

void lerp_rows(const float* a, const float* b, float w, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(LerpRows)(a, b, w, out, n);
}

void lerp_gather(const float* row, const int32_t* lower, const int32_t* upper, const float* w, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(LerpGather)(row, lower, upper, w, out, n);
}

}  // namespace mote::cpu::simd
#endif  // HWY_ONCE
