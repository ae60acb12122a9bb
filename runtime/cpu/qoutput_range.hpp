// The requantising store's output range for an int8 kernel's op: the
// output type's range in quanta relative to its zero point, narrowed by the
// op's fused Relu or Clip (QLinearConv's and QLinearMatMul's).
#pragma once

#include <cstdint>

#include "mote/status.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/cpu/qgemm.hpp"

namespace mote::cpu {

// Sets rq's lo, hi, zero and dtype for an output of `y_dtype` (i8 or u8)
// with y_scale and y_zero, and its activation for a fused HardSwish or SiLU;
// fails for another fused activation.
Status set_output_range(const KernelContext& ctx, DType y_dtype, float y_scale, int32_t y_zero, QRequantize& rq);

}  // namespace mote::cpu
