// Softmax or LogSoftmax over one axis of a tensor on softmax.comp (or its
// subgroup twin): the Softmax kernels (softmax.cpp) and the Attention
// kernel's normalisation of its scores (attention.cpp).
#pragma once

#include "runtime/ops/axis_split.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {

// Normalises `in` (split around the axis as `s`) into `out`; kUnsupported
// when the axis is too long for the device's loop limit. With
// `empty_rows_zero`, a row that is -inf everywhere gives zeros (Attention's
// rule) instead of NaN.
Status dispatch_softmax(PlanContext& ctx, TensorArg in, TensorArg out, const AxisSplit& s, bool is_log,
                        bool empty_rows_zero = false);

}  // namespace mote::vk
