// ConvTranspose: the gradient of Conv with respect to its input, used as a
// learned upsampling; output_padding and output_shape as in ONNX.
#include "runtime/ops/conv_geometry.hpp"

namespace mote {
namespace {

Status infer_conv_transpose(ShapeContext& ctx) { return infer_conv_output(ctx, &resolve_conv_transpose); }

}  // namespace
}  // namespace mote

MOTE_OP_DEF(ConvTranspose, {.min_inputs = 2, .max_inputs = 3, .infer = mote::infer_conv_transpose});
