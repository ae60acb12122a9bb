#include "runtime/core/layout.hpp"

#include <string>

#include "runtime/cpu/conv_blocked.hpp"
#include "runtime/cpu/conv_depthwise.hpp"
#include "runtime/cpu/gemm.hpp"
#include "runtime/cpu/pointwise_blocked.hpp"

namespace mote {

int64_t channel_block() {
  // Each dispatches on the best target of its own target list, and the
  // lists need not stay the same.
  const int64_t lanes = cpu::gemm_lanes();
  return lanes == cpu::depthwise_block_channels() && lanes == cpu::pointwise_blocked_lanes() &&
                 lanes == cpu::conv_blocked_lanes()
             ? lanes
             : 0;
}

Status check_channel_block(int64_t planned) {
  const int64_t now = channel_block();
  if (planned > 1 && planned == now) return {};
  return internal_error("tensors were laid out in channel blocks of " + std::to_string(planned) +
                        " but the kernels now use " + std::to_string(now) +
                        " (the SIMD target changed after the plan was built)");
}

}  // namespace mote
