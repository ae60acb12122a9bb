// Vulkan kernel of Attention without a KV cache, in three dispatches: the
// scores scale * Q K^T (plus the mask, as the product's bias) into a scratch
// tensor, a softmax over its rows (a row masked everywhere gives zeros, as
// on the CPU), then Y = P V. Q, K and V are read in place through strides:
// K transposed, and grouped heads as a batch dimension along which K and V
// stay put.
//
// Other forms run on the CPU: a KV cache or nonpad_kv_seqlen, softcap, the
// causal rule, the present_* and qk_matmul outputs, a bool mask or one that
// varies by batch or head, and 3-D inputs with more than one head (Y's rows
// of a head are not dense there).
#include <array>
#include <cmath>
#include <string>

#include "runtime/ops/attention.hpp"
#include "runtime/vulkan/kernels/matmul_dispatch.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/kernels/softmax_dispatch.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

// One value per batch dimension of the products, [batch, kv head, group]
// (the sizes, or an operand's strides along them; q head = kv head * group + g).
std::array<uint32_t, kMaxBatchDims> per_batch_dim(int64_t batch, int64_t kv_head, int64_t group) {
  return {static_cast<uint32_t>(batch), static_cast<uint32_t>(kv_head), static_cast<uint32_t>(group)};
}

// Why this op stays on the CPU, or empty.
std::string cpu_only_form(const PlanContext& ctx, const fb::AttentionAttrsT& a) {
  for (size_t i = 1; i < ctx.outputs.size(); ++i) {
    if (ctx.outputs[i] != nullptr) return "present_key, present_value or qk_matmul_output requested";
  }
  if (ctx.has_input(4) || ctx.has_input(5) || ctx.has_input(6)) return "a KV cache or nonpad_kv_seqlen";
  if (a.softcap != 0.0f) return "softcap";
  if (a.is_causal) return "is_causal";
  return {};
}

Status plan_attention(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::F32}));
  const auto& a = attrs<fb::AttentionAttrsT>(ctx.op);
  if (std::string why = cpu_only_form(ctx, a); !why.empty()) return ctx.unsupported(why);
  auto geometry = attention_geometry(a, ctx.in(0).shape(), ctx.in(1).shape(), ctx.in(2).shape(), nullptr, nullptr);
  if (!geometry.ok()) return ctx.unsupported(geometry.status().message());
  const AttentionGeometry& g = *geometry;
  if (g.three_d && (g.q_heads != 1 || g.kv_heads != 1)) return ctx.unsupported("3-D inputs with several heads");
  const int64_t scores = g.batch * g.q_heads * g.q_len * g.kv_len;
  if (scores == 0 || ctx.out(0).numel() == 0) return ctx.unsupported("empty tensor");
  if (!fits_u32(scores) || !fits_u32(ctx.in(0).numel()) || !fits_u32(ctx.in(1).numel()) ||
      !fits_u32(ctx.in(2).numel()) || !fits_u32(ctx.out(0).numel())) {
    return ctx.unsupported("more than 2^31 elements");
  }
  const int64_t group = g.q_heads / g.kv_heads, q = g.q_len, kv = g.kv_len, d = g.head_size, dv = g.v_head_size;

  Product s;
  s.m = q, s.n = kv, s.k = d;
  s.a_sm = d, s.a_sk = 1;  // Q's rows
  s.b_sk = 1, s.b_sn = d;  // K's rows as columns: K^T without a copy
  s.batch_dims = per_batch_dim(g.batch, g.kv_heads, group);
  s.a_batch_stride = per_batch_dim(g.q_heads * q * d, group * q * d, q * d);
  s.b_batch_stride = per_batch_dim(g.kv_heads * kv * d, kv * d, 0);
  s.batch = g.batch * g.q_heads;
  s.alpha = a.scale != 0.0f ? a.scale : 1.0f / std::sqrt(static_cast<float>(d));
  if (ctx.has_input(3)) {
    // The same [q, kv] (or [kv]) bias for every batch and head.
    const Shape& m = ctx.in(3).shape();
    for (size_t i = 0; i + 2 < m.size(); ++i) {
      if (m[i] != 1) return ctx.unsupported("an attn_mask that varies by batch or head");
    }
    if (m.back() != kv) return ctx.unsupported("an attn_mask shorter than the keys");
    s.bias = ctx.input(3);
    s.beta = 1.0f;
    s.bias_sm = m.size() >= 2 && m[m.size() - 2] != 1 ? kv : 0;
    s.bias_sn = 1;
  }
  s.a = ctx.input(0), s.b = ctx.input(1);
  s.y = ctx.add_scratch(DType::F32, scores);
  MOTE_RETURN_IF_ERROR(dispatch_matmul(ctx, s));

  const TensorArg probs = ctx.add_scratch(DType::F32, scores);
  MOTE_RETURN_IF_ERROR(dispatch_softmax(ctx, *s.y, probs, AxisSplit{scores / kv, kv, 1}, /*is_log=*/false,
                                        /*empty_rows_zero=*/true));

  Product o;
  o.m = q, o.n = dv, o.k = kv;
  o.a_sm = kv, o.a_sk = 1;
  o.b_sk = dv, o.b_sn = 1;
  o.batch_dims = s.batch_dims;
  o.a_batch_stride = per_batch_dim(g.q_heads * q * kv, group * q * kv, q * kv);
  o.b_batch_stride = per_batch_dim(g.kv_heads * kv * dv, kv * dv, 0);
  o.batch = s.batch;
  o.a = probs, o.b = ctx.input(2);
  return dispatch_matmul(ctx, o);
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(Attention, mote::vk::plan_attention);
