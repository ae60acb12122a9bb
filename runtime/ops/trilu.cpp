// Trilu(input, k?): input's shape, with the elements of the last two
// dimensions outside the upper triangle (column - row >= k) or the lower one
// (column - row <= k) set to zero. k is an optional i64 scalar, 0 if absent.
#include <string>

#include "runtime/core/shape_util.hpp"
#include "runtime/ops/shape_fns.hpp"

namespace mote {
namespace {

Status infer_trilu(ShapeContext& ctx) {
  if (ctx.rank(0) < 2) return ctx.fail("input of shape " + shape_to_string(ctx.shape(0)) + " needs rank 2 or more");
  if (ctx.has_input(1) && (ctx.dtype(1) != DType::I64 || shape_numel(ctx.shape(1)) > 1)) {
    return ctx.fail(std::string("k must be one i64, got ") + dtype_name(ctx.dtype(1)) + " " +
                    shape_to_string(ctx.shape(1)));
  }
  return shape_fns::same_as_input0(ctx);
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Trilu, {.min_inputs = 1, .max_inputs = 2, .infer = mote::infer_trilu});
