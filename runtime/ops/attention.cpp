// Attention's shape function and geometry (attention.hpp). The mask
// broadcasts to [batch, q_heads, q_len, total_len] after its last
// dimension is padded to total_len (with -inf, or false for a bool mask).
#include "runtime/ops/attention.hpp"

#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"

namespace mote {

Shape AttentionGeometry::y_shape() const {
  if (three_d) return {batch, q_len, q_heads * v_head_size};
  return {batch, q_heads, q_len, v_head_size};
}

Result<AttentionGeometry> attention_geometry(const fb::AttentionAttrsT& a, const Shape& q, const Shape& k,
                                             const Shape& v, const Shape* past_key, const Shape* past_value) {
  AttentionGeometry g;
  auto shapes = [&] { return "Q " + shape_to_string(q) + ", K " + shape_to_string(k) + ", V " + shape_to_string(v); };
  if (q.size() != k.size() || q.size() != v.size() || (q.size() != 3 && q.size() != 4)) {
    return invalid_argument("Q, K and V must all be 3-D or all 4-D: " + shapes());
  }
  g.three_d = q.size() == 3;
  g.batch = q[0];
  if (g.three_d) {
    if (a.q_num_heads <= 0 || a.kv_num_heads <= 0) {
      return invalid_argument("3-D inputs need q_num_heads and kv_num_heads (got " + std::to_string(a.q_num_heads) +
                              " and " + std::to_string(a.kv_num_heads) + ")");
    }
    if (q[2] % a.q_num_heads != 0 || k[2] % a.kv_num_heads != 0 || v[2] % a.kv_num_heads != 0) {
      return invalid_argument("hidden sizes do not divide by the head counts (" + std::to_string(a.q_num_heads) +
                              ", " + std::to_string(a.kv_num_heads) + "): " + shapes());
    }
    g.q_heads = a.q_num_heads;
    g.kv_heads = a.kv_num_heads;
    g.q_len = q[1];
    g.kv_len = k[1];
    g.head_size = q[2] / a.q_num_heads;
    g.v_head_size = v[2] / a.kv_num_heads;
    if (k[2] / a.kv_num_heads != g.head_size || v[1] != k[1]) {
      return invalid_argument("K's head size or V's length does not match: " + shapes());
    }
  } else {
    g.q_heads = q[1];
    g.kv_heads = k[1];
    g.q_len = q[2];
    g.kv_len = k[2];
    g.head_size = q[3];
    g.v_head_size = v[3];
    if (k[3] != g.head_size || v[1] != k[1] || v[2] != k[2]) return invalid_argument("K and V do not fit Q: " + shapes());
  }
  if (k[0] != g.batch || v[0] != g.batch) return invalid_argument("batch sizes differ: " + shapes());
  if (g.kv_heads <= 0 || g.q_heads % g.kv_heads != 0) {
    return invalid_argument("q heads (" + std::to_string(g.q_heads) + ") must be a multiple of kv heads (" +
                            std::to_string(g.kv_heads) + ")");
  }
  if ((past_key == nullptr) != (past_value == nullptr)) {
    return invalid_argument("past_key and past_value must be given together");
  }
  if (past_key) {
    const Shape want_k = {g.batch, g.kv_heads, (*past_key).size() == 4 ? (*past_key)[2] : -1, g.head_size};
    const Shape want_v = {g.batch, g.kv_heads, want_k[2], g.v_head_size};
    if (*past_key != want_k || *past_value != want_v) {
      return invalid_argument("past_key " + shape_to_string(*past_key) + " and past_value " +
                              shape_to_string(*past_value) + " must be [batch, kv_heads, past_len, size] like K and V");
    }
    g.past_len = (*past_key)[2];
  }
  return g;
}

namespace {

Status infer_attention(ShapeContext& ctx) {
  const DType dtype = ctx.dtype(0);
  if (dtype != DType::F32 && dtype != DType::F64) {
    return ctx.fail(std::string("Q has dtype ") + dtype_name(dtype) + "; supported: f32, f64");
  }
  for (size_t i : {1, 2, 4, 5}) {
    if (ctx.has_input(i) && ctx.dtype(i) != dtype) {
      return ctx.fail("input " + std::to_string(i) + " has dtype " + dtype_name(ctx.dtype(i)) + " but Q has " +
                      dtype_name(dtype));
    }
  }
  const auto& a = attrs<fb::AttentionAttrsT>(ctx.op);
  auto g = attention_geometry(a, ctx.shape(0), ctx.shape(1), ctx.shape(2), ctx.has_input(4) ? &ctx.shape(4) : nullptr,
                              ctx.has_input(5) ? &ctx.shape(5) : nullptr);
  if (!g.ok()) return ctx.fail(g.status().message());
  if (ctx.has_input(3)) {
    if (ctx.dtype(3) != DType::Bool && ctx.dtype(3) != dtype) {
      return ctx.fail(std::string("attn_mask must be bool or ") + dtype_name(dtype) + ", got " +
                      dtype_name(ctx.dtype(3)));
    }
    Shape mask = ctx.shape(3);
    if (mask.empty() || mask.back() > g->total_len()) {
      return ctx.fail("attn_mask " + shape_to_string(mask) + " must have a last dimension of at most " +
                      std::to_string(g->total_len()));
    }
    mask.back() = g->total_len();
    auto joint = broadcast_shapes({mask, g->scores_shape()});
    if (!joint.ok() || *joint != g->scores_shape()) {
      return ctx.fail("attn_mask " + shape_to_string(ctx.shape(3)) + " does not broadcast to the scores " +
                      shape_to_string(g->scores_shape()));
    }
  }
  if (ctx.has_input(6) && (ctx.dtype(6) != DType::I64 || ctx.shape(6) != Shape{g->batch})) {
    return ctx.fail("nonpad_kv_seqlen must be i64 [" + std::to_string(g->batch) + "]");
  }
  ctx.set_output(0, dtype, g->y_shape());
  if (ctx.op.outputs.size() > 1) ctx.set_output(1, dtype, g->present_key_shape());
  if (ctx.op.outputs.size() > 2) ctx.set_output(2, dtype, g->present_value_shape());
  if (ctx.op.outputs.size() > 3) ctx.set_output(3, dtype, g->scores_shape());
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Attention, {.min_inputs = 3, .max_inputs = 7, .min_outputs = 1, .max_outputs = 4,
                        .infer = mote::infer_attention});
