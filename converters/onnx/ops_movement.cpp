// Data movement: Transpose, Concat, Split, Slice, Gather, Pad,
// DepthToSpace, SpaceToDepth. Attribute forms of older opsets (Split's
// 'split' before 13, Slice's starts/ends/axes before 10, Pad's pads/value
// before 11) become constant inputs, Mote's form.
#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

Status map_transpose(NodeContext& ctx) {
  fb::TransposeAttrsT a;
  a.perm = ctx.attr_ints("perm");  // empty: reverse the axes, as in ONNX
  ctx.emit(fb::OpType::Transpose, {ctx.input(0)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_concat(NodeContext& ctx) {
  fb::AxisAttrsT a;
  // Opset 1 defaulted the axis to 1; since opset 4 it is required.
  a.axis = ctx.attr_int("axis", 1);
  std::vector<int> inputs;
  for (size_t i = 0; i < ctx.input_count(); ++i) inputs.push_back(ctx.input(i));
  ctx.emit(fb::OpType::Concat, inputs, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_split(NodeContext& ctx) {
  fb::SplitAttrsT a;
  a.axis = ctx.attr_int("axis", 0);
  a.num_outputs = ctx.attr_int("num_outputs", 0);
  std::vector<int> inputs = {ctx.input(0)};
  int sizes = -1;
  if (ctx.has_attr("split")) {
    sizes = ctx.constant_i64(ctx.attr_ints("split"), "split");
  } else if (ctx.opset() >= 13 || ctx.opset() < 2) {
    sizes = ctx.optional_input(1);  // opset 1 also took the sizes as input
  }
  if (sizes >= 0) inputs.push_back(sizes);
  // Every output is computed even when unnamed: the split sizes count them.
  ctx.emit(fb::OpType::Split, inputs, ctx.all_outputs(), a);
  return ctx.status();
}

Status map_slice(NodeContext& ctx) {
  int data = ctx.input(0);
  if (ctx.opset() >= 10) return map_direct(ctx, fb::OpType::Slice);
  std::vector<int> inputs = {data, ctx.constant_i64(ctx.attr_ints("starts"), "starts"),
                             ctx.constant_i64(ctx.attr_ints("ends"), "ends")};
  if (ctx.has_attr("axes")) inputs.push_back(ctx.constant_i64(ctx.attr_ints("axes"), "axes"));
  ctx.emit(fb::OpType::Slice, inputs, {ctx.output(0)});
  return ctx.status();
}

Status map_gather(NodeContext& ctx) {
  fb::AxisAttrsT a;
  a.axis = ctx.attr_int("axis", 0);
  ctx.emit(fb::OpType::Gather, {ctx.input(0), ctx.input(1)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_pad(NodeContext& ctx) {
  fb::PadAttrsT a;
  std::string mode = ctx.attr_string("mode", "constant");
  if (mode == "constant") {
    a.mode = fb::PadMode::Constant;
  } else if (mode == "reflect") {
    a.mode = fb::PadMode::Reflect;
  } else if (mode == "edge") {
    a.mode = fb::PadMode::Edge;
  } else if (mode == "wrap") {
    a.mode = fb::PadMode::Wrap;
  } else {
    return ctx.unsupported("pad mode '" + mode + "'");
  }
  int data = ctx.input(0);
  std::vector<int> inputs = {data};
  if (ctx.opset() >= 11) {
    inputs.push_back(ctx.input(1));
    inputs.push_back(ctx.optional_input(2));
    inputs.push_back(ctx.optional_input(3));
  } else {
    const char* pads_name = ctx.opset() < 2 ? "paddings" : "pads";
    inputs.push_back(ctx.constant_i64(ctx.attr_ints(pads_name), "pads"));
    float value = ctx.attr_float("value", 0.0f);
    inputs.push_back(value != 0.0f ? ctx.scalar(ctx.input_dtype(0).value_or(DType::F32), value, "value") : -1);
  }
  trim_omitted(inputs);
  ctx.emit(fb::OpType::Pad, inputs, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_depth_to_space(NodeContext& ctx) {
  fb::DepthSpaceAttrsT a;
  a.blocksize = ctx.attr_int("blocksize", 0);
  std::string mode = ctx.attr_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") return ctx.invalid("unknown mode '" + mode + "'");
  a.mode = mode == "CRD" ? fb::DepthToSpaceMode::CRD : fb::DepthToSpaceMode::DCR;
  if (a.blocksize < 1) return ctx.invalid("blocksize must be >= 1");
  ctx.emit(fb::OpType::DepthToSpace, {ctx.input(0)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_space_to_depth(NodeContext& ctx) {
  fb::DepthSpaceAttrsT a;
  a.blocksize = ctx.attr_int("blocksize", 0);
  if (a.blocksize < 1) return ctx.invalid("blocksize must be >= 1");
  ctx.emit(fb::OpType::SpaceToDepth, {ctx.input(0)}, {ctx.output(0)}, a);
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(Transpose, map_transpose);
MOTE_ONNX_OP(Concat, map_concat);
MOTE_ONNX_OP(Split, map_split);
MOTE_ONNX_OP(Slice, map_slice);
MOTE_ONNX_OP(Gather, map_gather);
MOTE_ONNX_OP(Pad, map_pad);
MOTE_ONNX_OP(DepthToSpace, map_depth_to_space);
MOTE_ONNX_OP(SpaceToDepth, map_space_to_depth);

}  // namespace mote::convert
