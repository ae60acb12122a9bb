// Cast: converts every element to CastAttrs.to, same shape. The conversion
// rules are in runtime/ops/cast.hpp.
#include "runtime/ops/cast.hpp"

#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/ops/shape_fns.hpp"

namespace mote {
namespace {

bool is_known_dtype(DType d) { return d >= DType::MIN && d <= DType::MAX; }

Status cast_shape(ShapeContext& ctx) {
  const DType to = attrs<fb::CastAttrsT>(ctx.op).to;
  if (!is_known_dtype(to)) return ctx.fail("'to' is " + std::to_string(static_cast<int>(to)) + ", not a dtype");
  if (!is_known_dtype(ctx.dtype(0))) {
    return ctx.fail("input has unknown dtype " + std::to_string(static_cast<int>(ctx.dtype(0))));
  }
  ctx.set_output(0, to, ctx.shape(0));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Cast, {.infer = cast_shape});
