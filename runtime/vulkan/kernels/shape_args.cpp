#include "runtime/vulkan/kernels/shape_args.hpp"

namespace mote::vk {

std::array<uint32_t, kMaxPushRank> broadcast_strides(const Shape& in, const Shape& out) {
  std::array<uint32_t, kMaxPushRank> strides{};
  int64_t stride = 1;
  int offset = static_cast<int>(out.size()) - static_cast<int>(in.size());
  for (int d = static_cast<int>(in.size()) - 1; d >= 0; --d) {
    int od = d + offset;
    int slot = kMaxPushRank - static_cast<int>(out.size()) + od;
    if (slot >= 0) strides[static_cast<size_t>(slot)] = in[static_cast<size_t>(d)] == 1 ? 0 : static_cast<uint32_t>(stride);
    stride *= in[static_cast<size_t>(d)];
  }
  return strides;
}

std::array<uint32_t, kMaxPushRank> padded_dims(const Shape& shape) {
  std::array<uint32_t, kMaxPushRank> dims;
  dims.fill(1);
  int offset = kMaxPushRank - static_cast<int>(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (offset + static_cast<int>(d) >= 0) dims[static_cast<size_t>(offset) + d] = static_cast<uint32_t>(shape[d]);
  }
  return dims;
}

Shape row_major_strides(const Shape& shape) {
  Shape strides(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) {
    strides[static_cast<size_t>(d)] = strides[static_cast<size_t>(d) + 1] * shape[static_cast<size_t>(d) + 1];
  }
  return strides;
}

bool fits_u32(int64_t numel) { return numel >= 0 && numel < (int64_t{1} << 31); }

}  // namespace mote::vk
