// Conv: N-D convolution (1 to 3 spatial dimensions) with groups, dilations,
// explicit or automatic padding and an optional bias.
#include "runtime/ops/conv_geometry.hpp"

namespace mote {
namespace {

Status infer_conv(ShapeContext& ctx) { return infer_conv_output(ctx, &resolve_conv); }

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Conv, {.min_inputs = 2, .max_inputs = 3, .infer = mote::infer_conv});
