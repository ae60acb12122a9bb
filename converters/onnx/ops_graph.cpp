// Ops that only shape the graph: Constant (becomes an initializer), Identity
// and Dropout (inference-time copies, emitted as Identity and removed by the
// remove_identities pass).
#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

Status map_constant(NodeContext& ctx) {
  if (ctx.has_attr("sparse_value")) return ctx.unsupported("sparse_value is not supported");
  if (ctx.has_attr("value_string") || ctx.has_attr("value_strings")) return ctx.unsupported("string constants");
  Tensor t;
  if (ctx.has_attr("value")) {
    std::optional<Tensor> value = ctx.attr_tensor("value");
    if (!value) return ctx.status();
    t = std::move(*value);
  } else if (ctx.has_attr("value_float")) {
    t = Tensor::from_vector<float>({}, {ctx.attr_float("value_float", 0)});
  } else if (ctx.has_attr("value_floats")) {
    std::vector<float> v = ctx.attr_floats("value_floats");
    t = Tensor::from_vector<float>({static_cast<int64_t>(v.size())}, v);
  } else if (ctx.has_attr("value_int")) {
    t = Tensor::from_vector<int64_t>({}, {ctx.attr_int("value_int", 0)});
  } else if (ctx.has_attr("value_ints")) {
    std::vector<int64_t> v = ctx.attr_ints("value_ints");
    t = Tensor::from_vector<int64_t>({static_cast<int64_t>(v.size())}, v);
  } else {
    return ctx.invalid("has no value attribute");
  }
  if (!ctx.status().ok()) return ctx.status();
  ctx.set_output_constant(0, std::move(t));
  return ctx.status();
}

Status map_identity(NodeContext& ctx) {
  ctx.emit(fb::OpType::Identity, {ctx.input(0)}, {ctx.output(0)});
  return ctx.status();
}

// Dropout at inference is a copy. Its optional mask output is all true
// (nothing dropped): ConstantOfShape over the input's shape. Opset 12 made
// training_mode an input; a constant true one asks for real dropout.
Status map_dropout(NodeContext& ctx) {
  int x = ctx.input(0);
  if (ctx.opset() >= 12) {
    if (const Tensor* training = ctx.constant_input(2); training && training->numel() == 1 && training->to_doubles()[0] != 0) {
      return ctx.unsupported("training_mode=true (random dropout) is not supported");
    }
    if (ctx.has_input(2) && !ctx.constant_input(2)) {
      return ctx.unsupported("training_mode must be a constant");
    }
  } else if (ctx.opset() < 7 && ctx.attr_int("is_test", 0) == 0 && ctx.has_output(1)) {
    return ctx.unsupported("is_test=0 with a mask output (training) is not supported");
  }
  ctx.emit(fb::OpType::Identity, {x}, {ctx.output(0)});
  if (ctx.has_output(1)) {
    int shape = ctx.temp("shape");
    ctx.emit(fb::OpType::Shape, {x}, {shape});
    fb::ConstantOfShapeAttrsT a;
    a.dtype = DType::Bool;
    a.value = 1.0;
    ctx.emit(fb::OpType::ConstantOfShape, {shape}, {ctx.output(1)}, a);
  }
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(Constant, map_constant);
MOTE_ONNX_OP(Identity, map_identity);
MOTE_ONNX_OP(Dropout, map_dropout);

}  // namespace mote::convert
