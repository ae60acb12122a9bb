#include "runtime/ops/conv_integer.hpp"

#include "runtime/core/op_def.hpp"
#include "runtime/ops/conv_geometry.hpp"

namespace mote {
namespace {

Status infer_conv_integer(ShapeContext& ctx) {
  auto g = resolve_conv(attrs<fb::ConvAttrsT>(ctx.op), ctx.shape(kCiX), ctx.shape(kCiW));
  if (!g.ok()) return ctx.fail(g.status().message());
  MOTE_RETURN_IF_ERROR(
      check_integer_operands(ctx, {"x", "w", "x_zero_point", "w_zero_point", "output channel"}, g->out_channels));
  ctx.set_output(0, DType::I32, g->output_shape());
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(ConvInteger, {.min_inputs = 2, .max_inputs = 4, .infer = mote::infer_conv_integer});
