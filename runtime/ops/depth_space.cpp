// DepthToSpace moves channel blocks into spatial blocks of an NCHW tensor;
// SpaceToDepth is its inverse.
#include <cstdint>

#include "runtime/core/attrs.hpp"
#include "runtime/core/op_def.hpp"

namespace mote {
namespace {

// The block size, checked; input 0 must be 4-D.
Result<int64_t> block_size(const ShapeContext& ctx) {
  if (ctx.rank(0) != 4) return ctx.fail("input must be 4-D NCHW, not " + shape_to_string(ctx.shape(0)));
  const int64_t b = attrs<fb::DepthSpaceAttrsT>(ctx.op).blocksize;
  if (b < 1) return ctx.fail("'blocksize' must be at least 1, not " + std::to_string(b));
  return b;
}

Status infer_depth_to_space(ShapeContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(int64_t b, block_size(ctx));
  const fb::DepthToSpaceMode mode = attrs<fb::DepthSpaceAttrsT>(ctx.op).mode;
  if (mode != fb::DepthToSpaceMode::DCR && mode != fb::DepthToSpaceMode::CRD) {
    return ctx.fail("unknown mode " + std::to_string(static_cast<int>(mode)));
  }
  const Shape& in = ctx.shape(0);
  if (b > 3037000499 || in[1] % (b * b) != 0) {  // 3037000499^2 < 2^63
    return ctx.fail("channels " + std::to_string(in[1]) + " are not a multiple of blocksize^2 (blocksize " +
                    std::to_string(b) + ")");
  }
  if (in[2] > INT64_MAX / b || in[3] > INT64_MAX / b) return ctx.fail("output shape overflows");
  ctx.set_output(0, ctx.dtype(0), {in[0], in[1] / (b * b), in[2] * b, in[3] * b});
  return {};
}

Status infer_space_to_depth(ShapeContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(int64_t b, block_size(ctx));
  const Shape& in = ctx.shape(0);
  if (in[2] % b != 0 || in[3] % b != 0) {
    return ctx.fail("height and width of " + shape_to_string(in) + " are not multiples of blocksize " +
                    std::to_string(b));
  }
  if (b > 3037000499 || in[1] > INT64_MAX / (b * b)) return ctx.fail("output shape overflows");
  ctx.set_output(0, ctx.dtype(0), {in[0], in[1] * b * b, in[2] / b, in[3] / b});
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(DepthToSpace, {.min_inputs = 1, .max_inputs = 1, .infer = mote::infer_depth_to_space});
MOTE_OP_DEF(SpaceToDepth, {.min_inputs = 1, .max_inputs = 1, .infer = mote::infer_space_to_depth});
