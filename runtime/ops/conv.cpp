// Conv: N-D convolution (1 to 3 spatial dimensions) with groups, dilations,
// explicit or automatic padding, an optional bias and an optional residual
// R (input 3): Y = act(conv(X, W) + B + R), R of Y's shape. The converter
// fuses a residual Add (ResNet's shortcut) into the Conv before it, so the
// sum is made while the output is written.
#include "runtime/ops/conv_geometry.hpp"

namespace mote {
namespace {

Status infer_conv(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(infer_conv_output(ctx, &resolve_conv));
  if (ctx.has_input(3) && ctx.shape(3) != ctx.outputs[0].shape) {
    return ctx.fail("residual R has shape " + shape_to_string(ctx.shape(3)) + ", expected the output's " +
                    shape_to_string(ctx.outputs[0].shape));
  }
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Conv, {.min_inputs = 2, .max_inputs = 4, .infer = mote::infer_conv});
