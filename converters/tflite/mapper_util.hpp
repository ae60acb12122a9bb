// Helpers the TFLite op mappers share: padding, layout choice for
// elementwise and axis-taking ops, and broadcasting constants into NCHW.
#pragma once

#include <vector>

#include "converters/tflite/op_context.hpp"

namespace mote::convert {

// TFLite SAME pads the end first when the total is odd: ONNX's SAME_UPPER.
fb::AutoPad auto_pad(tfl::Padding padding);

// The order an op that works on any layout (elementwise, concatenation,
// padding...) should run in: NCHW when its output is 4-D, some 4-D input is
// held in NCHW only, and every other input is 4-D or a constant that can be
// broadcast in NCHW (`inputs` lists the slots to consider).
Layout follow_inputs(TfliteOpContext& ctx, const std::vector<int>& inputs);

// Input i for an elementwise op in `layout`: a lower-rank constant is
// right-aligned to 4-D (numpy broadcasting in NHWC) and permuted, so it
// broadcasts the same way against NCHW values.
int broadcast_input(TfliteOpContext& ctx, int i, Layout layout);

// Per-axis lists (starts, pads...) of a 4-D NHWC op reordered to NCHW.
std::vector<int64_t> to_nchw_order(const std::vector<int64_t>& nhwc);

// Whether a 4-D tensor of NHWC shape `s` has the same element order in NCHW
// (every dimension that moves is 1), so a Reshape may read either form.
bool same_order_in_nchw(const Shape& s);

}  // namespace mote::convert
