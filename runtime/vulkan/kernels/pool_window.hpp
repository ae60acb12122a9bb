// The window geometry pool.comp and qlinear_pool.comp share
// (shaders/pool_window.glsl), from the host's pool_geometry().
#pragma once

#include <array>
#include <cstdint>

#include "runtime/ops/pool.hpp"
#include "runtime/ops/tensor_quant.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {

struct PoolPush {
  uint32_t n;  // outputs
  std::array<uint32_t, 3> in, out, kernel, stride, dilation, pad_begin, pad_end;
};
static_assert(sizeof(PoolPush) == 88, "must match pool.comp's push block");

// `g` in its 3-D form (PoolGeometry::as_3d), for `outputs` outputs; kUnsupported
// when a window has more taps than one invocation may loop over.
Result<PoolPush> pool_push(const PlanContext& ctx, const PoolGeometry& g, int64_t outputs);

// qlinear_pool.comp over 8-bit X: the max of codes (MaxPool; `q` unused) or
// the requantised average of the QLinear average pools.
void dispatch_quantized_pool(PlanContext& ctx, const PoolPush& window, bool is_max, bool count_pad,
                             const QUnaryParams& q);

}  // namespace mote::vk
