// SIMD body of transpose_simd.hpp, compiled once per instruction set by
// Highway's foreach_target.h; the HWY_ONCE section picks one at run time.
//
// 4x4 blocks through 128-bit vectors (four loads, eight shuffles, four
// stores), which every target but the scalar one has. Element by element the
// transpose moved 4 bytes per load and store: a sixth of the time of a 1x1
// convolution on 7x7 images went there (160 -> 960 channels, perf).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/transpose_simd.cpp"
#include "hwy/foreach_target.h"  // must come before highway.h

#include <cstring>

#include "hwy/highway.h"
#include "runtime/cpu/transpose_simd.hpp"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One element, bit for bit (the buffers may hold integers).
inline void MoveElement(const unsigned char* src, int64_t from, unsigned char* dst, int64_t to) {
  std::memcpy(dst + to * 4, src + from * 4, 4);
}

void Transpose4Byte(const void* src_bytes, int64_t src_stride, int64_t rows, int64_t cols, void* dst_bytes,
                    int64_t dst_stride) {
  const auto* src = static_cast<const unsigned char*>(src_bytes);
  auto* dst = static_cast<unsigned char*>(dst_bytes);
  int64_t r = 0;
#if HWY_TARGET != HWY_SCALAR
  // Floats as the vectors' lanes: shuffles move bits unchanged.
  const hn::FixedTag<float, 4> d;
  const auto* s = reinterpret_cast<const float*>(src);
  auto* o = reinterpret_cast<float*>(dst);
  for (; r + 4 <= rows; r += 4) {
    int64_t c = 0;
    for (; c + 4 <= cols; c += 4) {
      const float* in = s + r * src_stride + c;
      const auto r0 = hn::LoadU(d, in), r1 = hn::LoadU(d, in + src_stride);
      const auto r2 = hn::LoadU(d, in + 2 * src_stride), r3 = hn::LoadU(d, in + 3 * src_stride);
      const auto low01 = hn::InterleaveLower(d, r0, r1);   // r0[0] r1[0] r0[1] r1[1]
      const auto low23 = hn::InterleaveLower(d, r2, r3);   // r2[0] r3[0] r2[1] r3[1]
      const auto high01 = hn::InterleaveUpper(d, r0, r1);  // r0[2] r1[2] r0[3] r1[3]
      const auto high23 = hn::InterleaveUpper(d, r2, r3);  // r2[2] r3[2] r2[3] r3[3]
      float* out = o + c * dst_stride + r;
      hn::StoreU(hn::ConcatLowerLower(d, low23, low01), d, out);
      hn::StoreU(hn::ConcatUpperUpper(d, low23, low01), d, out + dst_stride);
      hn::StoreU(hn::ConcatLowerLower(d, high23, high01), d, out + 2 * dst_stride);
      hn::StoreU(hn::ConcatUpperUpper(d, high23, high01), d, out + 3 * dst_stride);
    }
    for (; c < cols; ++c) {
      for (int64_t k = r; k < r + 4; ++k) MoveElement(src, k * src_stride + c, dst, c * dst_stride + k);
    }
  }
#endif
  for (; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) MoveElement(src, r * src_stride + c, dst, c * dst_stride + r);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu::simd {

HWY_EXPORT(Transpose4Byte);

void transpose_4byte(const void* src, int64_t src_stride, int64_t rows, int64_t cols, void* dst, int64_t dst_stride) {
  HWY_DYNAMIC_DISPATCH(Transpose4Byte)(src, src_stride, rows, cols, dst, dst_stride);
}

}  // namespace mote::cpu::simd
#endif  // HWY_ONCE
