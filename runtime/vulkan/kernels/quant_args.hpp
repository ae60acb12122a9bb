// Pieces the Vulkan kernels of the int8 ops share: whether they run on this
// device at all, their per-tensor parameters (which must be known at plan
// time: a converted model's are constants), and 256-entry code tables as
// constant buffers.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "runtime/ops/quantize.hpp"  // is_8bit
#include "runtime/ops/tensor_quant.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {

// kUnsupported on CPU-type devices (lavapipe) unless forced
// (DeviceFeatures::int8_shaders): there the CPU's int8 kernels are far
// faster, and an int8 model should not cross between the backends op by op.
Status require_int8_shaders(const PlanContext& ctx);

// The parameters of `operand` (label as the CPU kernels' errors), which must
// be known now.
Result<TensorQuant> known_tensor_quant(const PlanContext& ctx, const QuantOperand& operand,
                                       const std::string& label = "");

// kUnsupported unless the op's fused activation is one the int8 kernels'
// requantising store applies (none, Relu, Clip, HardSwish, SiLU: the CPU
// kernels' set, activation.glsl's formulas).
Status require_int8_store_activation(const PlanContext& ctx);

// One output channel's (or column's) requantisation row as the int8 GEMM
// and convolution shaders read it: four words each (qlinear_matmul.glsl's
// `column`, qlinear_conv.glsl's `channel`).
struct RequantRow {
  int32_t bias = 0;
  int32_t weight_zero = 0;
  float multiplier = 0;    // input scale * weight scale
  int32_t weight_sum = 0;  // the sum of the channel's weight codes
};
Tensor requant_row_words(const std::vector<RequantRow>& rows);

// A code table as 64 words, four bytes each (qlinear_table.comp's layout).
Tensor code_table_words(const std::array<uint8_t, 256>& table);

}  // namespace mote::vk
