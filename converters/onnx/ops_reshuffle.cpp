// BitCast, CenterCropPad, ReverseSequence and the window functions map one
// to one (runtime/ops/reshuffle.cpp).
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

}  // namespace

MOTE_ONNX_OP(BitCast, map_bit_cast);
MOTE_ONNX_OP(CenterCropPad, map_center_crop_pad);
MOTE_ONNX_OP(ReverseSequence, map_reverse_sequence);
MOTE_ONNX_OP(HannWindow, map_window<fb::OpType::HannWindow>);
MOTE_ONNX_OP(HammingWindow, map_window<fb::OpType::HammingWindow>);
MOTE_ONNX_OP(BlackmanWindow, map_window<fb::OpType::BlackmanWindow>);

}  // namespace mote::convert
