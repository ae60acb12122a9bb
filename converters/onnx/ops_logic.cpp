// Comparison, logic, selection and conversion: Equal, Less, Greater,
// LessOrEqual, GreaterOrEqual, Not, And, Or, Xor, the Bitwise ops,
// BitShift, Where, Cast, and CastLike (rewritten to Cast once the target
// dtype is known).
#include "converters/onnx/mapper_util.hpp"
#include "converters/onnx/tensor_proto.hpp"

namespace mote::convert {
namespace {

template <fb::OpType kType>
Status map_plain(NodeContext& ctx) {
  return map_direct(ctx, kType);
}

template <fb::OpType kType>
Status map_binary(NodeContext& ctx) {
  return map_broadcasting_binary(ctx, kType);
}

Status emit_cast(NodeContext& ctx, DType to) {
  fb::CastAttrsT a;
  a.to = to;
  ctx.emit(fb::OpType::Cast, {ctx.input(0)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_cast(NodeContext& ctx) {
  // Opsets 1-5 name the type as a string ("FLOAT"); later ones as an enum.
  int64_t to = 0;
  if (ctx.opset() < 6 && ctx.has_attr("to")) {
    std::string s = ctx.attr_string("to", "");
    static const std::pair<const char*, int64_t> kNames[] = {
        {"FLOAT", 1}, {"UINT8", 2}, {"INT8", 3}, {"INT32", 6}, {"INT64", 7}, {"BOOL", 9}, {"FLOAT16", 10}, {"DOUBLE", 11}};
    for (const auto& [name, value] : kNames) {
      if (s == name) to = value;
    }
  } else {
    to = ctx.attr_int("to", 0);
  }
  auto dtype = dtype_from_onnx(static_cast<int32_t>(to));
  if (!dtype.ok()) return ctx.unsupported("cast to " + dtype.status().message());
  return emit_cast(ctx, *dtype);
}

Status map_cast_like(NodeContext& ctx) {
  auto to = ctx.input_dtype(1);
  if (!to) return ctx.unsupported("the dtype of 'target_type' (input 1) is not known at conversion time");
  return emit_cast(ctx, *to);
}

Status map_bit_shift(NodeContext& ctx) {
  const std::string direction = ctx.attr_string("direction", "");
  if (direction != "LEFT" && direction != "RIGHT") return ctx.invalid("direction must be LEFT or RIGHT");
  fb::ShiftAttrsT a;
  a.left = direction == "LEFT";
  ctx.emit(fb::OpType::BitShift, {ctx.input(0), ctx.input(1)}, {ctx.output(0)}, a);
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(BitShift, map_bit_shift);
MOTE_ONNX_OP(Equal, map_binary<fb::OpType::Equal>);
MOTE_ONNX_OP(Less, map_binary<fb::OpType::Less>);
MOTE_ONNX_OP(Greater, map_binary<fb::OpType::Greater>);
MOTE_ONNX_OP(LessOrEqual, map_binary<fb::OpType::LessOrEqual>);
MOTE_ONNX_OP(GreaterOrEqual, map_binary<fb::OpType::GreaterOrEqual>);
MOTE_ONNX_OP(Not, map_plain<fb::OpType::Not>);
MOTE_ONNX_OP(And, map_binary<fb::OpType::And>);
MOTE_ONNX_OP(Or, map_binary<fb::OpType::Or>);
MOTE_ONNX_OP(Xor, map_binary<fb::OpType::Xor>);
MOTE_ONNX_OP(BitwiseAnd, map_binary<fb::OpType::BitwiseAnd>);
MOTE_ONNX_OP(BitwiseOr, map_binary<fb::OpType::BitwiseOr>);
MOTE_ONNX_OP(BitwiseXor, map_binary<fb::OpType::BitwiseXor>);
MOTE_ONNX_OP(BitwiseNot, map_plain<fb::OpType::BitwiseNot>);
MOTE_ONNX_OP(Where, map_plain<fb::OpType::Where>);
MOTE_ONNX_OP(Cast, map_cast);
MOTE_ONNX_OP(CastLike, map_cast_like);

}  // namespace mote::convert
