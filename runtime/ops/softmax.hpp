// What the Softmax/LogSoftmax shape function and kernels share.
#pragma once

#include "runtime/core/attrs.hpp"

namespace mote {

// The axis attribute: AxisAttrs when the op carries them, else ONNX's
// default -1 (the schema's AxisAttrs default of 0 is Concat's, not Softmax's).
inline int64_t softmax_axis_attr(const fb::OpT& op) {
  return has_attrs<fb::AxisAttrsT>(op) ? attrs<fb::AxisAttrsT>(op).axis : -1;
}

}  // namespace mote
