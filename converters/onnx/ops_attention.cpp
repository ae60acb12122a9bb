// Attention (opset 23, and 24's nonpad_kv_seqlen input) and RotaryEmbedding
// map one to one.
// softmax_precision is accepted and ignored: Mote's kernels take the
// softmax in at least f32 whatever it asks.
#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

Status map_attention(NodeContext& ctx) {
  fb::AttentionAttrsT a;
  a.is_causal = ctx.attr_int("is_causal", 0) != 0;
  a.q_num_heads = ctx.attr_int("q_num_heads", 0);
  a.kv_num_heads = ctx.attr_int("kv_num_heads", 0);
  a.scale = ctx.attr_float("scale", 0.0f);
  a.softcap = ctx.attr_float("softcap", 0.0f);
  a.qk_matmul_output_mode = static_cast<int32_t>(ctx.attr_int("qk_matmul_output_mode", 0));
  if (a.qk_matmul_output_mode < 0 || a.qk_matmul_output_mode > 3) {
    return ctx.invalid("qk_matmul_output_mode " + std::to_string(a.qk_matmul_output_mode) + " is not 0 to 3");
  }
  if (ctx.has_attr("left_window_size") || ctx.has_attr("right_window_size")) {
    return ctx.unsupported("sliding-window attention (opset 25's window sizes) is not implemented");
  }
  return map_direct(ctx, fb::OpType::Attention, a);
}

Status map_rotary_embedding(NodeContext& ctx) {
  fb::RotaryAttrsT a;
  a.interleaved = ctx.attr_int("interleaved", 0) != 0;
  a.rotary_embedding_dim = ctx.attr_int("rotary_embedding_dim", 0);
  a.num_heads = ctx.attr_int("num_heads", 0);
  return map_direct(ctx, fb::OpType::RotaryEmbedding, a);
}

}  // namespace

MOTE_ONNX_OP(Attention, map_attention);
MOTE_ONNX_OP(RotaryEmbedding, map_rotary_embedding);

}  // namespace mote::convert
