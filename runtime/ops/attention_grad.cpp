// Attention's gradients, for the forms the converter's fuse_attention writes
// and opset-23 exports without a cache. The forward op keeps its scores in
// cache and never stores them, so the backward pass recomputes the
// probabilities from Q and K and goes on with ordinary ops:
//   P  = softmax(scale * Q K^T + mask)
//   dV = P^T dY,  dP = dY V^T,  dS = P * (dP - sum(dP * P, last axis)),
//   dQ = scale * dS K,  dK = scale * dS^T Q
// 3-D inputs with one head work as 4-D [batch, 1, len, size]. The mask is
// data, not a weight: it gets no gradient.
#include <cmath>

#include "runtime/train/grad_builder.hpp"

namespace mote {
namespace {

Status attention_grad(GradContext& c) {
  const auto& a = attrs<fb::AttentionAttrsT>(c.op);
  TrainGraph& g = c.g;
  for (size_t i = 4; i < c.op.inputs.size(); ++i) {
    if (c.op.inputs[i] >= 0) return c.fail("a KV cache or nonpad_kv_seqlen has no gradient yet");
  }
  if (c.op.outputs.size() > 1) return c.fail("present_key, present_value and qk_matmul_output have no gradient yet");
  if (a.softcap != 0.0f || a.is_causal) return c.fail("softcap and is_causal have no gradient yet");
  const Shape q_shape = g.shape(c.in(0)), k_shape = g.shape(c.in(1)), v_shape = g.shape(c.in(2));
  const bool three_d = q_shape.size() == 3;
  if (three_d ? a.q_num_heads != 1 || a.kv_num_heads != 1 : q_shape.size() != 4 || k_shape[1] != q_shape[1]) {
    return c.fail("gradients need 4-D inputs with as many key as query heads, or 3-D inputs with one head (Q " +
                  shape_to_string(q_shape) + ", K " + shape_to_string(k_shape) + ")");
  }
  const int mask = c.op.inputs.size() > 3 ? c.op.inputs[3] : -1;
  if (mask >= 0 && (g.dtype(mask) != g.dtype(c.in(0)) || g.shape(mask).back() != k_shape[k_shape.size() - 2])) {
    return c.fail("gradients need a float mask as long as the keys, got " + std::string(dtype_name(g.dtype(mask))) +
                  " " + shape_to_string(g.shape(mask)));
  }
  // [batch, len, size] -> [batch, 1, len, size], and back for the gradients.
  auto four_d = [&](int x) {
    if (!three_d) return x;
    const Shape& s = g.shape(x);
    return g.reshape(x, {s[0], 1, s[1], s[2]});
  };
  auto as_input = [&](int grad, const Shape& shape) { return three_d ? g.reshape(grad, shape) : grad; };
  const int q = four_d(c.in(0)), k = four_d(c.in(1)), v = four_d(c.in(2)), dy = four_d(c.dy());
  const double scale = a.scale != 0.0f ? a.scale : 1.0 / std::sqrt(static_cast<double>(q_shape.back()));

  int scores = g.scale(g.op1(fb::OpType::MatMul, {q, g.transpose_last2(k)}), scale);
  if (mask >= 0) scores = g.add(scores, mask);
  fb::AxisAttrsT last;
  last.axis = -1;
  const int p = g.op1(fb::OpType::Softmax, {scores}, last);
  if (c.wants(2)) c.set(2, as_input(g.op1(fb::OpType::MatMul, {g.transpose_last2(p), dy}), v_shape));
  if (c.wants(0) || c.wants(1)) {
    const int dp = g.op1(fb::OpType::MatMul, {dy, g.transpose_last2(v)});
    const int ds = g.mul(p, g.sub(dp, g.reduce_sum(g.mul(dp, p), {3}, /*keepdims=*/true)));
    if (c.wants(0)) c.set(0, as_input(g.scale(g.op1(fb::OpType::MatMul, {ds, k}), scale), q_shape));
    if (c.wants(1)) c.set(1, as_input(g.scale(g.op1(fb::OpType::MatMul, {g.transpose_last2(ds), q}), scale), k_shape));
  }
  return {};
}

}  // namespace
}  // namespace mote

MOTE_GRAD(Attention, mote::attention_grad);
