// NonMaxSuppression's selection, shared by its shape function (the output
// length depends on it) and its kernel.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

// Rows of [batch, class, box] in ONNX's order: per batch, per class, boxes
// by falling score (the lower index first among equal scores), each kept
// unless its IoU with a box kept before exceeds the threshold. Inputs as
// the op's: boxes [B, N, 4], scores [B, C, N], then the optional scalars
// (nullptr when omitted).
Result<std::vector<std::array<int64_t, 3>>> non_max_suppression(const Tensor& boxes, const Tensor& scores,
                                                                const Tensor* max_per_class, const Tensor* iou,
                                                                const Tensor* score_threshold, bool center_point_box);

}  // namespace mote
