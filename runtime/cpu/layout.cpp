#include "runtime/core/layout.hpp"

#include "runtime/cpu/conv_depthwise.hpp"
#include "runtime/cpu/gemm.hpp"

namespace mote {

int64_t channel_block() {
  // Both dispatch on the best target of their own lists, which could differ
  // on a CPU that one list lacks (the depthwise kernels skip SSE4).
  static const int64_t block = cpu::gemm_lanes() == cpu::depthwise_block_channels() ? cpu::gemm_lanes() : 0;
  return block;
}

}  // namespace mote
