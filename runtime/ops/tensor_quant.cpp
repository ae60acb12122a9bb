#include "runtime/ops/tensor_quant.hpp"

#include "runtime/core/shape_util.hpp"
#include "runtime/ops/qlinear_conv.hpp"
#include "runtime/ops/quantize.hpp"

namespace mote {

Status check_tensor_quant(const ShapeContext& ctx, const QuantOperand& operand, const std::string& label) {
  const std::string name = label.empty() ? operand.name : label;
  if (!ctx.has_input(operand.data) || !ctx.has_input(operand.scale) || !ctx.has_input(operand.zero)) {
    return ctx.fail(name + ", " + name + "_scale and " + name + "_zero_point are all required");
  }
  if (!is_8bit(ctx.dtype(operand.data))) {
    return ctx.fail(name + " has dtype " + dtype_name(ctx.dtype(operand.data)) + "; expected i8 or u8");
  }
  if (ctx.dtype(operand.scale) != DType::F32) {
    return ctx.fail(name + "_scale has dtype " + dtype_name(ctx.dtype(operand.scale)) + "; expected f32");
  }
  if (ctx.dtype(operand.zero) != ctx.dtype(operand.data)) {
    return ctx.fail(name + "_zero_point has dtype " + dtype_name(ctx.dtype(operand.zero)) + "; expected " +
                    dtype_name(ctx.dtype(operand.data)) + " (" + name + "'s)");
  }
  for (const auto& [index, suffix] : {std::pair{operand.scale, "_scale"}, std::pair{operand.zero, "_zero_point"}}) {
    if (shape_numel(ctx.shape(index)) != 1) {
      return ctx.fail(name + suffix + " has shape " + shape_to_string(ctx.shape(index)) +
                      "; expected one value (per-tensor quantisation)");
    }
  }
  return {};
}

Result<TensorQuant> read_tensor_quant(const std::vector<const Tensor*>& inputs, const QuantOperand& operand,
                                      const std::string& label) {
  TensorQuant q;
  q.scale = inputs[operand.scale]->data<float>()[0];
  q.zero = int8_element(*inputs[operand.zero], 0);
  MOTE_RETURN_IF_ERROR(check_qlinear_scale((label.empty() ? operand.name : label) + "_scale", q.scale));
  return q;
}

Result<QUnaryParams> read_qunary_params(const std::vector<const Tensor*>& inputs) {
  QUnaryParams p;
  MOTE_ASSIGN_OR_RETURN(p.x, read_tensor_quant(inputs, kQUnaryX));
  MOTE_ASSIGN_OR_RETURN(p.y, read_tensor_quant(inputs, kQUnaryY));
  return p;
}

}  // namespace mote
