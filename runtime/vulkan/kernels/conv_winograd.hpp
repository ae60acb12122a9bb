// Winograd convolution on the GPU: F(4x4, 3x3) or F(2x2, 3x3) for 3x3,
// stride-1, undilated, ungrouped 2-D Conv with constant weights, as three
// dispatches: the input transform (winograd_input.comp), one batched GEMM of
// (tile + 2)^2 point products [C_out x C_in] x [C_in x tiles] on matmul.comp
// (so GEMM tuning applies to them), and the output transform with the
// epilogue (winograd_output.comp). The weights are transformed once at
// prepare (runtime/ops/winograd_weights, shared with the CPU kernel). 36
// multiplications per channel pair and 4x4 outputs instead of 144 (16 per
// 2x2 instead of 36), for V and M scratch traffic of 2.25 (4) times the
// input and output.
#pragma once

#include "runtime/ops/conv_geometry.hpp"
#include "runtime/vulkan/kernels/unary_codes.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {

// Outputs per tile side (4 or 2) of the variant the GPU kernel would use for
// this convolution, or 0 when Winograd does not apply or does not pay.
int gpu_winograd_tile(const PlanContext& ctx, const ConvGeometry& g);

Status plan_winograd(PlanContext& ctx, const ConvGeometry& g, const FusedCode& act, int tile);

}  // namespace mote::vk
