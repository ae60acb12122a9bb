// SIMD bodies of winograd_simd.hpp, compiled once per instruction set by
// Highway's foreach_target.h; the HWY_ONCE section dispatches at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/winograd_simd.cpp"
#include "hwy/foreach_target.h"  // must come before highway.h

#include <cstddef>

#include "hwy/highway.h"
#include "runtime/cpu/winograd_simd.hpp"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// At most kWinogradLanes lanes, so a vector never spans two rows (wide SVE).
using D = hn::CappedTag<float, kWinogradLanes>;
using V = hn::Vec<D>;
constexpr size_t kRow = kWinogradLanes;  // floats between two points

// B^T applied to six points `s` rows apart, written `os` rows apart, for the
// lanes starting at `lane`.
HWY_INLINE void InputLine(const float* in, size_t s, float* out, size_t os, size_t lane) {
  const D d;
  const V d0 = hn::LoadU(d, in + lane), d1 = hn::LoadU(d, in + s * kRow + lane);
  const V d2 = hn::LoadU(d, in + 2 * s * kRow + lane), d3 = hn::LoadU(d, in + 3 * s * kRow + lane);
  const V d4 = hn::LoadU(d, in + 4 * s * kRow + lane), d5 = hn::LoadU(d, in + 5 * s * kRow + lane);
  const V four = hn::Set(d, 4.0f), five = hn::Set(d, 5.0f), two = hn::Set(d, 2.0f);
  // out0 = 4 d0 - 5 d2 + d4;  out5 = 4 d1 - 5 d3 + d5
  hn::StoreU(hn::NegMulAdd(five, d2, hn::MulAdd(four, d0, d4)), d, out + lane);
  hn::StoreU(hn::NegMulAdd(five, d3, hn::MulAdd(four, d1, d5)), d, out + 5 * os * kRow + lane);
  // out1,2 = d4 + d3 -/+ 4 (d1 + d2 | d1 - d2), signs as below
  const V d34 = hn::Add(d3, d4), d4m3 = hn::Sub(d4, d3);
  hn::StoreU(hn::NegMulAdd(four, hn::Add(d1, d2), d34), d, out + os * kRow + lane);
  hn::StoreU(hn::MulAdd(four, hn::Sub(d1, d2), d4m3), d, out + 2 * os * kRow + lane);
  // out3,4 = d4 - d2 +/- 2 (d3 - d1)
  const V d42 = hn::Sub(d4, d2), d31 = hn::Sub(d3, d1);
  hn::StoreU(hn::MulAdd(two, d31, d42), d, out + 3 * os * kRow + lane);
  hn::StoreU(hn::NegMulAdd(two, d31, d42), d, out + 4 * os * kRow + lane);
}

// A^T applied to six points `s` rows apart, four results `os` rows apart.
HWY_INLINE void OutputLine(const float* in, size_t s, float* out, size_t os, size_t lane) {
  const D d;
  const V m0 = hn::LoadU(d, in + lane), m1 = hn::LoadU(d, in + s * kRow + lane);
  const V m2 = hn::LoadU(d, in + 2 * s * kRow + lane), m3 = hn::LoadU(d, in + 3 * s * kRow + lane);
  const V m4 = hn::LoadU(d, in + 4 * s * kRow + lane), m5 = hn::LoadU(d, in + 5 * s * kRow + lane);
  const V a = hn::Add(m1, m2), b = hn::Sub(m1, m2), c = hn::Add(m3, m4), e = hn::Sub(m3, m4);
  hn::StoreU(hn::Add(hn::Add(m0, a), c), d, out + lane);
  hn::StoreU(hn::MulAdd(hn::Set(d, 2.0f), e, b), d, out + os * kRow + lane);
  hn::StoreU(hn::MulAdd(hn::Set(d, 4.0f), c, a), d, out + 2 * os * kRow + lane);
  hn::StoreU(hn::Add(hn::MulAdd(hn::Set(d, 8.0f), e, b), m5), d, out + 3 * os * kRow + lane);
}

void InputTiles(const float* HWY_RESTRICT in, float* HWY_RESTRICT out) {
  HWY_ALIGN float cols[36 * kRow];
  for (size_t lane = 0; lane < kRow; lane += hn::Lanes(D())) {
    for (size_t j = 0; j < 6; ++j) InputLine(in + j * kRow, 6, cols + j * kRow, 6, lane);
    for (size_t i = 0; i < 6; ++i) InputLine(cols + i * 6 * kRow, 1, out + i * 6 * kRow, 1, lane);
  }
}

void OutputTiles(const float* HWY_RESTRICT in, float bias, float lo, float hi, float* HWY_RESTRICT out) {
  const D d;
  HWY_ALIGN float cols[24 * kRow];
  for (size_t lane = 0; lane < kRow; lane += hn::Lanes(d)) {
    for (size_t j = 0; j < 6; ++j) OutputLine(in + j * kRow, 6, cols + j * kRow, 6, lane);
    for (size_t i = 0; i < 4; ++i) OutputLine(cols + i * 6 * kRow, 1, out + i * 4 * kRow, 1, lane);
    const V add = hn::Set(d, bias), vlo = hn::Set(d, lo), vhi = hn::Set(d, hi);
    for (size_t p = 0; p < 16; ++p) {
      float* row = out + p * kRow + lane;
      hn::StoreU(hn::Min(hn::Max(hn::Add(hn::LoadU(d, row), add), vlo), vhi), d, row);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu::simd {

HWY_EXPORT(InputTiles);
HWY_EXPORT(OutputTiles);

void winograd_input_tiles(const float* d, float* out) { HWY_DYNAMIC_DISPATCH(InputTiles)(d, out); }

void winograd_output_tiles(const float* m, float bias, float lo, float hi, float* out) {
  HWY_DYNAMIC_DISPATCH(OutputTiles)(m, bias, lo, hi, out);
}

}  // namespace mote::cpu::simd
#endif  // HWY_ONCE
