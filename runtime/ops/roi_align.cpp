// RoiAlign(X [N, C, H, W], rois [R, 4], batch_indices [R]) -> [R, C,
// output_height, output_width]: each region of X's image batch_indices[r]
// pooled to a fixed grid of bins (attributes in mote.fbs, RoiAlignAttrs).
#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/op_def.hpp"

namespace mote {
namespace {

Status infer_roi_align(ShapeContext& ctx) {
  const auto& a = attrs<fb::RoiAlignAttrsT>(ctx.op);
  if (ctx.rank(0) != 4) return ctx.fail("X " + shape_to_string(ctx.shape(0)) + " must be 4-D [N, C, H, W]");
  if (ctx.rank(1) != 2 || ctx.shape(1)[1] != 4) return ctx.fail("rois " + shape_to_string(ctx.shape(1)) + " must be [R, 4]");
  if (ctx.rank(2) != 1 || ctx.shape(2)[0] != ctx.shape(1)[0]) {
    return ctx.fail("batch_indices " + shape_to_string(ctx.shape(2)) + " must be [R] for rois " + shape_to_string(ctx.shape(1)));
  }
  if (ctx.dtype(0) != DType::F32 || ctx.dtype(1) != DType::F32) return ctx.fail("X and rois must be f32");
  if (ctx.dtype(2) != DType::I64 && ctx.dtype(2) != DType::I32) return ctx.fail("batch_indices must be i64 or i32");
  if (a.output_height < 1 || a.output_width < 1 || a.sampling_ratio < 0) {
    return ctx.fail("output " + std::to_string(a.output_height) + "x" + std::to_string(a.output_width) +
                    " must be at least 1x1 and sampling_ratio " + std::to_string(a.sampling_ratio) + " not negative");
  }
  ctx.set_output(0, DType::F32, {ctx.shape(1)[0], ctx.shape(0)[1], a.output_height, a.output_width});
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(RoiAlign, {.min_inputs = 3, .max_inputs = 3, .infer = mote::infer_roi_align});
