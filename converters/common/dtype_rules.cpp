#include "converters/common/dtype_rules.hpp"

namespace mote::convert {
namespace {

std::optional<DType> input_dtype(const Graph& graph, const fb::OpT& op, size_t i) {
  if (i >= op.inputs.size() || op.inputs[i] < 0) return std::nullopt;
  const Value& v = graph.values[static_cast<size_t>(op.inputs[i])];
  if (!v.dtype_known) return std::nullopt;
  return v.dtype;
}

}  // namespace

std::optional<DType> output_dtype(const Graph& graph, const fb::OpT& op, size_t index) {
  using T = fb::OpType;
  switch (op.type) {
    case T::Equal:
    case T::Less:
    case T::Greater:
    case T::LessOrEqual:
    case T::GreaterOrEqual:
    case T::Not:
    case T::And:
    case T::Or:
    case T::Xor:
      return DType::Bool;
    case T::Cast:
      return attrs<fb::CastAttrsT>(op).to;
    case T::Shape:
    case T::Size:
    case T::ArgMax:
    case T::ArgMin:
    case T::NonZero:
    case T::NonMaxSuppression:
      return DType::I64;
    case T::MatMulInteger:
    case T::ConvInteger:
      return DType::I32;
    case T::DynamicQuantizeLinear:  // y, y_scale, y_zero_point
      return index == 1 ? DType::F32 : DType::U8;
    case T::EyeLike:
      return attrs<fb::EyeLikeAttrsT>(op).dtype;
    case T::BitCast:
      return attrs<fb::CastAttrsT>(op).to;
    case T::HannWindow:
    case T::HammingWindow:
    case T::BlackmanWindow:
      return attrs<fb::WindowAttrsT>(op).dtype;
    case T::OneHot:
      return input_dtype(graph, op, 2);
    case T::QLinearConv:  // y_zero_point's
    case T::QLinearMatMul:
    case T::QLinearAdd:  // C_zero_point's
    case T::QLinearMul:
      return input_dtype(graph, op, 7);
    case T::QLinearConcat:  // Y_zero_point's
      return input_dtype(graph, op, 1);
    case T::QLinearAveragePool:
    case T::QLinearGlobalAveragePool:
    case T::QLinearActivation:
      return input_dtype(graph, op, 4);
    case T::ConstantOfShape:
      return attrs<fb::ConstantOfShapeAttrsT>(op).dtype;
    case T::Where:
    case T::DequantizeLinear:  // the scale's
      return input_dtype(graph, op, 1);
    case T::QuantizeLinear:
      return op.inputs.size() > 2 && op.inputs[2] >= 0 ? input_dtype(graph, op, 2)
                                                        : std::optional<DType>(attrs<fb::QuantizeAttrsT>(op).output_dtype);
    case T::TopK:
    case T::MaxPool:  // output 1: Indices
      return index == 1 ? std::optional<DType>(DType::I64) : input_dtype(graph, op, 0);
    default:
      // Everything else keeps the dtype of its first input (data, X, A...).
      return input_dtype(graph, op, 0);
  }
}

void apply_dtype_rules(Graph& graph, const fb::OpT& op) {
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    if (op.outputs[i] < 0) continue;
    Value& v = graph.values[static_cast<size_t>(op.outputs[i])];
    if (v.dtype_known) continue;
    if (auto d = output_dtype(graph, op, i)) {
      v.dtype = *d;
      v.dtype_known = true;
    }
  }
}

}  // namespace mote::convert
