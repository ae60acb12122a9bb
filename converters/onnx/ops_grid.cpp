// GridSample (opset 16 names its modes bilinear / bicubic, opset 20 linear /
// cubic and adds N-D) and AffineGrid.
#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

Status map_grid_sample(NodeContext& ctx) {
  fb::GridSampleAttrsT a;
  const std::string mode = ctx.attr_string("mode", ctx.opset() >= 20 ? "linear" : "bilinear");
  if (mode == "linear" || mode == "bilinear") {
    a.mode = fb::ResizeMode::Linear;
  } else if (mode == "nearest") {
    a.mode = fb::ResizeMode::Nearest;
  } else if (mode == "cubic" || mode == "bicubic") {
    a.mode = fb::ResizeMode::Cubic;
  } else {
    return ctx.invalid("unknown mode '" + mode + "'");
  }
  const std::string padding = ctx.attr_string("padding_mode", "zeros");
  if (padding == "zeros") {
    a.padding_mode = fb::GridPadding::Zeros;
  } else if (padding == "border") {
    a.padding_mode = fb::GridPadding::Border;
  } else if (padding == "reflection") {
    a.padding_mode = fb::GridPadding::Reflection;
  } else {
    return ctx.invalid("unknown padding_mode '" + padding + "'");
  }
  a.align_corners = ctx.attr_int("align_corners", 0) != 0;
  ctx.emit(fb::OpType::GridSample, {ctx.input(0), ctx.input(1)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_affine_grid(NodeContext& ctx) {
  fb::GridSampleAttrsT a;
  a.align_corners = ctx.attr_int("align_corners", 0) != 0;
  ctx.emit(fb::OpType::AffineGrid, {ctx.input(0), ctx.input(1)}, {ctx.output(0)}, a);
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(GridSample, map_grid_sample);
MOTE_ONNX_OP(AffineGrid, map_affine_grid);

}  // namespace mote::convert
