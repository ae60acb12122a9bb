// RotaryEmbedding(X, cos_cache, sin_cache, position_ids?): X's shape. X is
// [batch, heads, seq, size] or [batch, seq, heads * size]; the caches are
// [batch, seq, rot / 2] without position_ids, or [positions, rot / 2]
// indexed by position_ids [batch, seq].
#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"

namespace mote {
namespace {

Status infer_rotary(ShapeContext& ctx) {
  const auto& a = attrs<fb::RotaryAttrsT>(ctx.op);
  const Shape& x = ctx.shape(0);
  if (ctx.dtype(0) != DType::F32 && ctx.dtype(0) != DType::F64) {
    return ctx.fail(std::string("X has dtype ") + dtype_name(ctx.dtype(0)) + "; supported: f32, f64");
  }
  if (x.size() != 3 && x.size() != 4) return ctx.fail("X " + shape_to_string(x) + " must be 3-D or 4-D");
  if (x.size() == 3 && (a.num_heads <= 0 || x[2] % a.num_heads != 0)) {
    return ctx.fail("3-D X " + shape_to_string(x) + " needs num_heads dividing its last dimension (got " +
                    std::to_string(a.num_heads) + ")");
  }
  const int64_t head_size = x.size() == 4 ? x[3] : x[2] / a.num_heads;
  const int64_t rot = a.rotary_embedding_dim > 0 ? a.rotary_embedding_dim : head_size;
  if (rot > head_size || rot % 2 != 0) {
    return ctx.fail("rotary_embedding_dim " + std::to_string(rot) + " must be even and at most the head size " +
                    std::to_string(head_size));
  }
  const int64_t seq = x.size() == 4 ? x[2] : x[1];
  const Shape want = ctx.has_input(3) ? Shape{-1, rot / 2} : Shape{x[0], seq, rot / 2};
  for (size_t i : {1, 2}) {
    const Shape& c = ctx.shape(i);
    bool ok = c.size() == want.size() && c.back() == want.back() && ctx.dtype(i) == ctx.dtype(0);
    if (!ctx.has_input(3)) ok = ok && c == want;
    if (!ok) {
      return ctx.fail(std::string(i == 1 ? "cos_cache " : "sin_cache ") + shape_to_string(c) + " must be " +
                      (ctx.has_input(3) ? "[positions, " + std::to_string(rot / 2) + "]" : shape_to_string(want)) +
                      " of X's dtype");
    }
  }
  if (ctx.has_input(3) && (ctx.shape(3) != Shape{x[0], seq} || (ctx.dtype(3) != DType::I64 && ctx.dtype(3) != DType::I32))) {
    return ctx.fail("position_ids " + shape_to_string(ctx.shape(3)) + " must be i64 [batch, seq]");
  }
  ctx.set_output(0, ctx.dtype(0), x);
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(RotaryEmbedding, {.min_inputs = 3, .max_inputs = 4, .infer = mote::infer_rotary});
