// BitCast, CenterCropPad, ReverseSequence, the window functions and DFT map
// one to one (DFT's axis, an attribute before opset 20 with default 1,
// becomes a constant input).
#include "converters/onnx/mapper_util.hpp"
#include "converters/onnx/tensor_proto.hpp"

namespace mote::convert {
namespace {

Status map_bit_cast(NodeContext& ctx) {
  fb::CastAttrsT a;
  auto to = dtype_from_onnx(static_cast<int32_t>(ctx.attr_int("to", 0)));
  if (!to.ok()) return ctx.unsupported(to.status().message());
  a.to = *to;
  ctx.emit(fb::OpType::BitCast, {ctx.input(0)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_center_crop_pad(NodeContext& ctx) {
  fb::AxesAttrsT a;
  a.axes = ctx.attr_ints("axes");
  ctx.emit(fb::OpType::CenterCropPad, {ctx.input(0), ctx.input(1)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_reverse_sequence(NodeContext& ctx) {
  fb::SequenceAttrsT a;
  a.batch_axis = ctx.attr_int("batch_axis", 1);
  a.time_axis = ctx.attr_int("time_axis", 0);
  ctx.emit(fb::OpType::ReverseSequence, {ctx.input(0), ctx.input(1)}, {ctx.output(0)}, a);
  return ctx.status();
}

template <fb::OpType kType>
Status map_window(NodeContext& ctx) {
  fb::WindowAttrsT a;
  a.periodic = ctx.attr_int("periodic", 1) != 0;
  auto dtype = dtype_from_onnx(static_cast<int32_t>(ctx.attr_int("output_datatype", 1)));
  if (!dtype.ok()) return ctx.unsupported(dtype.status().message());
  a.dtype = *dtype;
  ctx.emit(kType, {ctx.input(0)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_dft(NodeContext& ctx) {
  fb::DftAttrsT a;
  a.inverse = ctx.attr_int("inverse", 0) != 0;
  a.onesided = ctx.attr_int("onesided", 0) != 0;
  const int length = ctx.input_count() > 1 && ctx.has_input(1) ? ctx.input(1) : -1;
  int axis = ctx.input_count() > 2 && ctx.has_input(2) ? ctx.input(2) : -1;
  if (ctx.opset() < 20) axis = ctx.constant_i64({ctx.attr_int("axis", 1)}, "axis");
  std::vector<int> inputs = {ctx.input(0), length, axis};
  trim_omitted(inputs);
  ctx.emit(fb::OpType::DFT, inputs, {ctx.output(0)}, a);
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(DFT, map_dft);
MOTE_ONNX_OP(BitCast, map_bit_cast);
MOTE_ONNX_OP(CenterCropPad, map_center_crop_pad);
MOTE_ONNX_OP(ReverseSequence, map_reverse_sequence);
MOTE_ONNX_OP(HannWindow, map_window<fb::OpType::HannWindow>);
MOTE_ONNX_OP(HammingWindow, map_window<fb::OpType::HammingWindow>);
MOTE_ONNX_OP(BlackmanWindow, map_window<fb::OpType::BlackmanWindow>);

}  // namespace mote::convert
