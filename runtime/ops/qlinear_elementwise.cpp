// QLinearAdd, QLinearMul and QLinearConcat: qlinear_elementwise.hpp has
// their equations.
#include "runtime/ops/qlinear_elementwise.hpp"

#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/shape_util.hpp"

namespace mote {
namespace {

Status infer_qlinear_binary(ShapeContext& ctx) {
  // The clamp of the requantisation: what every backend's kernel takes.
  if (const fb::FusedActivationT* act = ctx.op.fused.get(); act && act->kind != fb::ActivationKind::None &&
                                                            act->kind != fb::ActivationKind::Relu &&
                                                            act->kind != fb::ActivationKind::Clip) {
    return ctx.fail(std::string("fuses only Relu and Clip, not ") + fb::EnumNameActivationKind(act->kind));
  }
  for (const QuantOperand& operand : {kQBinaryA, kQBinaryB, kQBinaryC}) {
    MOTE_RETURN_IF_ERROR(check_tensor_quant(ctx, operand));
  }
  if (ctx.dtype(kQBinaryB.data) != ctx.dtype(kQBinaryA.data) ||
      ctx.dtype(kQBinaryC.zero) != ctx.dtype(kQBinaryA.data)) {
    return ctx.fail(std::string("A, B and C_zero_point must share one 8-bit type; got ") +
                    dtype_name(ctx.dtype(kQBinaryA.data)) + ", " + dtype_name(ctx.dtype(kQBinaryB.data)) + ", " +
                    dtype_name(ctx.dtype(kQBinaryC.zero)));
  }
  auto out = broadcast_shapes(ctx.shape(kQBinaryA.data), ctx.shape(kQBinaryB.data));
  if (!out.ok()) return ctx.fail(out.status().message());
  ctx.set_output(0, ctx.dtype(kQBinaryC.zero), *out);
  return {};
}

Status infer_qlinear_concat(ShapeContext& ctx) {
  const size_t n = ctx.inputs.size();
  if (n < 5 || (n - 2) % 3 != 0) {
    return ctx.fail("takes Y_scale, Y_zero_point and a (X, X_scale, X_zero_point) triple per input; got " +
                    std::to_string(n) + " inputs");
  }
  MOTE_RETURN_IF_ERROR(check_tensor_quant(ctx, kQConcatY));
  const Shape& first = ctx.shape(qconcat_input(0).data);
  const int64_t attr_axis = attrs<fb::AxisAttrsT>(ctx.op).axis;
  auto axis = normalize_axis(attr_axis, static_cast<int>(first.size()));
  if (!axis.ok() || first.empty()) {
    return ctx.fail("axis " + std::to_string(attr_axis) + " out of range for rank " + std::to_string(first.size()));
  }
  const auto at = static_cast<size_t>(*axis);
  Shape out = first;
  out[at] = 0;
  for (size_t k = 0; k < qconcat_count(n); ++k) {
    const QuantOperand x = qconcat_input(k);
    MOTE_RETURN_IF_ERROR(check_tensor_quant(ctx, x, qconcat_label(k)));
    const Shape& s = ctx.shape(x.data);
    bool compatible = s.size() == first.size();
    for (size_t d = 0; compatible && d < s.size(); ++d) compatible = d == at || s[d] == first[d];
    if (!compatible) {
      return ctx.fail("input " + std::to_string(k) + " of shape " + shape_to_string(s) +
                      " does not match input 0 of shape " + shape_to_string(first) + " outside axis " +
                      std::to_string(*axis));
    }
    out[at] += s[at];
  }
  ctx.set_output(0, ctx.dtype(kQConcatY.zero), std::move(out));
  return {};
}

}  // namespace

Result<std::array<TensorQuant, 3>> read_qbinary_params(const std::vector<const Tensor*>& inputs) {
  std::array<TensorQuant, 3> q;
  MOTE_ASSIGN_OR_RETURN(q[0], read_tensor_quant(inputs, kQBinaryA));
  MOTE_ASSIGN_OR_RETURN(q[1], read_tensor_quant(inputs, kQBinaryB));
  MOTE_ASSIGN_OR_RETURN(q[2], read_tensor_quant(inputs, kQBinaryC));
  return q;
}

}  // namespace mote

MOTE_OP_DEF(QLinearAdd, {.min_inputs = 8, .max_inputs = 8, .infer = mote::infer_qlinear_binary});
MOTE_OP_DEF(QLinearMul, {.min_inputs = 8, .max_inputs = 8, .infer = mote::infer_qlinear_binary});
MOTE_OP_DEF(QLinearConcat,
            {.min_inputs = 5, .max_inputs = mote::kUnboundedInputs, .infer = mote::infer_qlinear_concat});
