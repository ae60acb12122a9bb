// Expand broadcasts its input to a shape; Tile repeats it along each axis.
#include <cstdint>

#include "runtime/core/shape_util.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote {
namespace {

// Bidirectional: the output is the broadcast of the input shape and 'shape',
// so a 1 in 'shape' keeps the input's dimension.
Status infer_expand(ShapeContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, known_int_list(ctx, 1, "'shape' (input 1)"));
  for (int64_t d : shape) {
    if (d < 0) return ctx.fail("'shape' has a negative dimension " + std::to_string(d));
  }
  auto out = broadcast_shapes(ctx.shape(0), shape);
  if (!out.ok()) return ctx.fail(out.status().message());
  ctx.set_output(0, ctx.dtype(0), std::move(*out));
  return {};
}

Status infer_tile(ShapeContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(std::vector<int64_t> repeats, known_int_list(ctx, 1, "'repeats' (input 1)"));
  const Shape& in = ctx.shape(0);
  if (repeats.size() != in.size()) {
    return ctx.fail("'repeats' has " + std::to_string(repeats.size()) + " entries for an input of rank " +
                    std::to_string(in.size()));
  }
  Shape out(in.size());
  for (size_t k = 0; k < in.size(); ++k) {
    if (repeats[k] < 0) return ctx.fail("'repeats'[" + std::to_string(k) + "] is negative");
    if (in[k] != 0 && repeats[k] > INT64_MAX / in[k]) return ctx.fail("'repeats' overflow the output shape");
    out[k] = in[k] * repeats[k];
  }
  if (shape_numel(out) < 0) return ctx.fail("'repeats' overflow the output shape");
  ctx.set_output(0, ctx.dtype(0), std::move(out));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Expand, {.min_inputs = 2, .max_inputs = 2, .value_inputs = 1u << 1, .infer = mote::infer_expand});
MOTE_OP_DEF(Tile, {.min_inputs = 2, .max_inputs = 2, .value_inputs = 1u << 1, .infer = mote::infer_tile});
