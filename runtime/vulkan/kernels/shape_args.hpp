// Shape arithmetic shared by the Vulkan kernels: broadcast strides and
// fixed-size dims arrays for push constants.
#pragma once

#include <array>
#include <cstdint>

#include "mote/tensor.hpp"

namespace mote::vk {

constexpr int kMaxPushRank = 6;

// Element strides of `in` (row-major) laid against `out` for ONNX
// broadcasting: right-aligned, 0 where `in` has size 1 or lacks the axis.
std::array<uint32_t, kMaxPushRank> broadcast_strides(const Shape& in, const Shape& out);
// `shape` right-aligned into kMaxPushRank dims, padded with 1 on the left.
std::array<uint32_t, kMaxPushRank> padded_dims(const Shape& shape);
// Row-major element strides of `shape`.
Shape row_major_strides(const Shape& shape);

// True when every element count and index fits the shaders' 32-bit math.
bool fits_u32(int64_t numel);

}  // namespace mote::vk
