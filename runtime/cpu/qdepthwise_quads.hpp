// int8 depthwise convolution in integers, four taps per instruction: where
// the CPU has VNNI and byte permutes (x86's AVX3_DL target: Ice Lake, Zen 4
// and later), each output pixel's taps along a kernel row are gathered into
// one int32 lane of four bytes by a permute (vpermb) of 64 bytes of the
// input row, and vpdpbusd multiplies them by the row's four weights and
// adds the four products into the pixel's int32 sum in one instruction. A
// 3x3 kernel is three such instructions per 16 outputs, and the sums go
// straight to the GEMM's requantising store (qrequantize-inl.h), with no
// float copy of the input (the float path, qdepthwise.hpp, widens every
// plane and spent 22 % of int8 MobileNetV2 widening and requantising float
// sums). MobileNetV2 int8's 17 depthwise layers: 1.49 -> 0.84 ms at 1
// thread.
//
// The input's bytes are read unsigned (int8 ones with their top bit
// flipped: x + 128), the loads masked to the row's own bytes with the
// input's zero point in the other lanes (the padding), so every pixel's sum
// is sum(w * x) over all taps and the zero point comes out through the
// bias: bias - zero * sum(w). Other CPUs take the float path.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/cpu/plane_conv_shape.hpp"
#include "runtime/cpu/qgemm.hpp"
#include "runtime/ops/conv_geometry.hpp"

namespace mote::cpu {

// Planes narrower than a vector of outputs (7x7 and 14x14 at stride 1)
// are computed flat: outputs 16 at a time in the plane's order, across row
// ends, each vector's taps gathered by two-source permutes from one load of
// 64 bytes of the flattened input plane (its window), the padding from a
// register of zero points. The permutes depend only on the geometry, so
// they are made when the layer is prepared.
using FlatShapeKey = std::array<int64_t, 12>;

inline FlatShapeKey flat_shape_key(const PlaneConvShape& s) {
  return {s.in_h,     s.in_w,     s.out_h,      s.out_w,      s.kernel_h, s.kernel_w,
          s.stride_h, s.stride_w, s.dilation_h, s.dilation_w, s.pad_top,  s.pad_left};
}

// At most this many permutes (4 KB): a 14x14 plane with a 3x3 kernel needs
// 39, a 7x7 one with 5x5 40. A vector holds 16 outputs; a load, 64 bytes.
inline constexpr int64_t kFlatMaxPermutes = 64;
inline constexpr int64_t kFlatVectorOutputs = 16, kFlatLoadBytes = 64;

struct QDepthwiseFlat {
  FlatShapeKey shape{};          // the plane geometry they were made for
  std::vector<int64_t> windows;  // per vector of outputs: its window's first input byte; empty: no flat path
  std::vector<uint8_t> index;    // [vector][kernel row][lane group]: 64 permute bytes (64 and up: padding)

  // Whether these serve planes of shape s.
  bool serves(const PlaneConvShape& s) const { return !windows.empty() && shape == flat_shape_key(s); }
};

// A depthwise layer's weights as the kernel multiplies them.
struct QDepthwiseQuads {
  int64_t per_row = 0;            // lanes per kernel row, ceil(kernel_w / 4); 0 when the weights do not fit int8
  std::vector<int32_t> taps;      // [channel][kernel_h][per_row]: four int8 taps, the first in the low byte
  std::vector<int32_t> tap_sums;  // per channel
  QDepthwiseFlat flat;            // empty unless the prepared geometry is computed flat
};

// The weights of `channels` kernels of kernel_h x kernel_w taps (less their
// zero points), packed; per_row 0 when a tap lies outside int8.
QDepthwiseQuads qdepthwise_quads_pack(int64_t channels, int64_t kernel_h, int64_t kernel_w, const int16_t* taps);

// Whether the CPU's SIMD target runs the integer kernel (x86's AVX3_DL).
bool qdepthwise_quads_available();

// The flat path's permutes for geometry g in w.flat, where it applies and
// this CPU runs the integer kernel (left empty where not); runs whose
// planes differ from g take the other paths.
void qdepthwise_quads_plan_flat(const ConvGeometry& g, QDepthwiseQuads& w);

// Computes the layer into ctx.out(0) and returns true, or returns false
// (nothing written) when this CPU or the layer's shape is not one the
// kernel takes. `x_zero` is the input's zero point, `bias` and
// `multiplier` per output channel; `rq` as qdepthwise_run's.
bool qdepthwise_quads_run(KernelContext& ctx, const ConvGeometry& g, const QDepthwiseQuads& w, int32_t x_zero,
                          const std::vector<int32_t>& bias, const std::vector<float>& multiplier,
                          const QRequantize& rq);

}  // namespace mote::cpu
