// One batched product Y = act(alpha * A x B + beta * bias) on matmul.comp,
// described by strides so operands are read in place (transposed,
// broadcast, a head of a packed tensor). Gemm and MatMul (gemm.cpp), the
// Attention kernel's two products (attention.cpp) and Winograd convolution's
// point products (conv_winograd.cpp) record through it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {

constexpr size_t kMaxBatchDims = 3;

struct Product {
  int64_t m, n, k;
  int64_t a_sm, a_sk, b_sk, b_sn;  // element strides of A along rows / depth, of B along depth / columns
  int64_t bias_sm = 0, bias_sn = 0;
  // Batch dimensions, innermost last (1 where unused), and each operand's
  // element stride along them; Y is dense, m x n per batch.
  std::array<uint32_t, kMaxBatchDims> batch_dims{1, 1, 1}, a_batch_stride{}, b_batch_stride{};
  int64_t batch = 1;
  float alpha = 1.0f, beta = 0.0f;
  std::optional<TensorArg> bias;
  // Whether the op's fused activation applies to this product (not when the
  // product is an inner step of the op, as Winograd's point products are).
  bool apply_fused = true;
  // The operands and result; unset: the op's inputs 0 and 1 and output 0.
  std::optional<TensorArg> a, b, y;
};

// Whether dispatch_matmul runs the product as Y^T = B^T x A^T, so that the
// longer side of the output runs along the shader's columns (A is then
// read along the columns: row-major [k, m] per batch reads it contiguously).
inline bool matmul_swaps(const Product& pr) { return pr.n < 64 && pr.n < pr.m; }

// Records the product, with the op's fused activation if it has one.
// kUnsupported when the device's limits do not fit it.
Status dispatch_matmul(PlanContext& ctx, const Product& pr);

}  // namespace mote::vk
