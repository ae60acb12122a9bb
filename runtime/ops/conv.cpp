// Conv: N-D convolution (1 to 3 spatial dimensions) with groups, dilations,
// explicit or automatic padding and an optional bias.
#include "runtime/ops/conv_geometry.hpp"
#include "runtime/ops/float_inputs.hpp"

namespace mote {
namespace {

Status infer_conv(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_same_float_dtype(ctx, {"X", "W", "B"}));
  auto g = resolve_conv(attrs<fb::ConvAttrsT>(ctx.op), ctx.shape(0), ctx.shape(1));
  if (!g.ok()) return ctx.fail(g.status().message());
  if (ctx.has_input(2) && ctx.shape(2) != Shape{g->out_channels}) {
    return ctx.fail("bias B has shape " + shape_to_string(ctx.shape(2)) + ", expected [" +
                    std::to_string(g->out_channels) + "] (one value per output channel)");
  }
  ctx.set_output(0, ctx.dtype(0), g->output_shape());
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Conv, {.min_inputs = 2, .max_inputs = 3, .infer = mote::infer_conv});
