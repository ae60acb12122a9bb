// What the Conv, ConvTranspose and QLinearConv Vulkan kernels check before
// choosing shaders, in one place so they cannot drift apart.
#pragma once

#include <initializer_list>

#include "runtime/ops/conv_geometry.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {

// ConvGeometry keeps (depth, height, width) in slots 0..2.
constexpr size_t kConvH = 1, kConvW = 2;

// The 2-D window fields every conv shader reads, in their push-block order.
struct ConvWindow {
  int32_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
};
ConvWindow conv_window(const ConvGeometry& g);

// `count` row-major matrices of rows x cols, each as cols x rows: weights
// transposed once at prepare for shaders that read them along the other axis.
Tensor transposed_matrices(const Tensor& m, int64_t count, int64_t rows, int64_t cols);

// The geometry of a Conv (transposed = false), ConvTranspose or QLinearConv
// (X and W at inputs `x` and `w`) the shaders can run: tensors of `dtypes`,
// a known fused activation, 1-D or 2-D, 32-bit indices and a non-empty
// output; kUnsupported with the reason otherwise.
Result<ConvGeometry> plannable_conv_geometry(PlanContext& ctx, bool transposed,
                                             std::initializer_list<DType> dtypes = {DType::F32}, size_t x = 0,
                                             size_t w = 1);

}  // namespace mote::vk
