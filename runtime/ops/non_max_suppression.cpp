// NonMaxSuppression(boxes, scores, max_output_boxes_per_class?,
// iou_threshold?, score_threshold?) -> i64 [selected, 3]. Every input is a
// value input: the selection decides the output length.
#include "runtime/ops/non_max_suppression.hpp"

#include <algorithm>
#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote {
namespace {

struct Corners {
  double x_min, x_max, y_min, y_max;
};

Corners corners(const float* b, bool center) {
  if (center) {
    return {b[0] - b[2] / 2.0, b[0] + b[2] / 2.0, b[1] - b[3] / 2.0, b[1] + b[3] / 2.0};
  }
  return {std::min<double>(b[1], b[3]), std::max<double>(b[1], b[3]), std::min<double>(b[0], b[2]),
          std::max<double>(b[0], b[2])};
}

// Whether IoU(a, b) exceeds the threshold; degenerate boxes never suppress.
bool suppresses(const Corners& a, const Corners& b, double threshold) {
  const double ix = std::min(a.x_max, b.x_max) - std::max(a.x_min, b.x_min);
  const double iy = std::min(a.y_max, b.y_max) - std::max(a.y_min, b.y_min);
  if (ix <= 0 || iy <= 0) return false;
  const double inter = ix * iy;
  const double area_a = (a.x_max - a.x_min) * (a.y_max - a.y_min);
  const double area_b = (b.x_max - b.x_min) * (b.y_max - b.y_min);
  const double uni = area_a + area_b - inter;
  if (area_a <= 0 || area_b <= 0 || uni <= 0) return false;
  return inter / uni > threshold;
}

double scalar_or(const Tensor* t, double fallback) {
  return t && t->numel() > 0 ? t->to_doubles()[0] : fallback;
}

}  // namespace

Result<std::vector<std::array<int64_t, 3>>> non_max_suppression(const Tensor& boxes, const Tensor& scores,
                                                                const Tensor* max_per_class, const Tensor* iou,
                                                                const Tensor* score_threshold, bool center) {
  if (boxes.dtype() != DType::F32 || scores.dtype() != DType::F32 || boxes.rank() != 3 || scores.rank() != 3 ||
      boxes.dim(2) != 4 || scores.dim(0) != boxes.dim(0) || scores.dim(2) != boxes.dim(1)) {
    return invalid_argument("boxes " + shape_to_string(boxes.shape()) + " and scores " + shape_to_string(scores.shape()) +
                            " must be f32 [B, N, 4] and [B, C, N]");
  }
  const int64_t batches = boxes.dim(0), classes = scores.dim(1), count = boxes.dim(1);
  // Exporters ask for "no limit" with INT64_MAX (torchvision's batched_nms):
  // compare as doubles, since casting that back to int64 overflows.
  const double wanted = scalar_or(max_per_class, 0.0);
  const int64_t limit = wanted >= static_cast<double>(count) ? count : static_cast<int64_t>(std::max(0.0, wanted));
  const double iou_threshold = scalar_or(iou, 0.0);
  const bool has_score_threshold = score_threshold && score_threshold->numel() > 0;
  const double min_score = scalar_or(score_threshold, 0.0);
  std::vector<std::array<int64_t, 3>> selected;
  for (int64_t b = 0; b < batches; ++b) {
    const float* batch_boxes = boxes.data<float>() + b * count * 4;
    for (int64_t c = 0; c < classes; ++c) {
      const float* s = scores.data<float>() + (b * classes + c) * count;
      std::vector<int64_t> order;
      for (int64_t i = 0; i < count; ++i) {
        if (!has_score_threshold || s[i] > min_score) order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return s[x] > s[y]; });
      std::vector<Corners> kept;
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= limit) break;
        const Corners box = corners(batch_boxes + i * 4, center);
        if (std::any_of(kept.begin(), kept.end(), [&](const Corners& k) { return suppresses(box, k, iou_threshold); })) {
          continue;
        }
        kept.push_back(box);
        selected.push_back({b, c, i});
      }
    }
  }
  return selected;
}

namespace {

Status infer_nms(ShapeContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(const Tensor* boxes, known_input_value(ctx, 0, "'boxes' (input 0)"));
  MOTE_ASSIGN_OR_RETURN(const Tensor* scores, known_input_value(ctx, 1, "'scores' (input 1)"));
  auto selected = non_max_suppression(*boxes, *scores, optional_value(ctx, 2), optional_value(ctx, 3),
                                      optional_value(ctx, 4), attrs<fb::NmsAttrsT>(ctx.op).center_point_box);
  if (!selected.ok()) return ctx.fail(selected.status().message());
  ctx.set_output(0, DType::I64, {static_cast<int64_t>(selected->size()), 3});
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(NonMaxSuppression, {.min_inputs = 2, .max_inputs = 5, .value_inputs = 0b11111u, .infer = mote::infer_nms});
