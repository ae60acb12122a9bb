// Reference QLinearAdd, QLinearMul and QLinearConcat: each output element
// from its definition (qlinear_elementwise.hpp), the real values and the
// requantisation in double; broadcasting through strides.
#include "runtime/ops/qlinear_elementwise.hpp"

#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/quantize.hpp"
#include "runtime/reference/element_index.hpp"
#include "runtime/reference/fused_activation.hpp"
#include "runtime/reference/requantize.hpp"

namespace mote::reference {
namespace {

int64_t strided_offset(const std::vector<int64_t>& index, const std::vector<int64_t>& strides) {
  int64_t offset = 0;
  for (size_t d = 0; d < index.size(); ++d) offset += index[d] * strides[d];
  return offset;
}

Status qlinear_binary(KernelContext& ctx, bool multiply) {
  if (!fused_activation_known(ctx.op.fused.get())) return ctx.fail("unknown fused activation");
  auto params = read_qbinary_params(ctx.inputs);
  if (!params.ok()) return ctx.fail(params.status().message());
  const std::array<TensorQuant, 3>& q = *params;
  const Tensor& a = ctx.in(kQBinaryA.data);
  const Tensor& b = ctx.in(kQBinaryB.data);
  Tensor& y = ctx.out(0);
  const std::vector<int64_t> sa = broadcast_strides(a.shape(), y.shape());
  const std::vector<int64_t> sb = broadcast_strides(b.shape(), y.shape());
  std::vector<int64_t> index;
  for (int64_t i = 0; i < y.numel(); ++i) {
    unravel_index(i, y.shape(), index);
    const double ra = double{q[0].scale} * (int8_element(a, strided_offset(index, sa)) - q[0].zero);
    const double rb = double{q[1].scale} * (int8_element(b, strided_offset(index, sb)) - q[1].zero);
    const double real = apply_fused_activation(ctx.op.fused.get(), multiply ? ra * rb : ra + rb);
    store_requantized(real, q[2].scale, q[2].zero, y, i);
  }
  return {};
}

Status qlinear_add(KernelContext& ctx) { return qlinear_binary(ctx, false); }
Status qlinear_mul(KernelContext& ctx) { return qlinear_binary(ctx, true); }

Status qlinear_concat(KernelContext& ctx) {
  auto yq = read_tensor_quant(ctx.inputs, kQConcatY);
  if (!yq.ok()) return ctx.fail(yq.status().message());
  Tensor& y = ctx.out(0);
  auto axis = normalize_axis(attrs<fb::AxisAttrsT>(ctx.op).axis, y.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  const auto at = static_cast<size_t>(*axis);
  int64_t start = 0;  // of the current input along the axis
  std::vector<int64_t> index;
  for (size_t k = 0; k < qconcat_count(ctx.inputs.size()); ++k) {
    const QuantOperand operand = qconcat_input(k);
    auto xq = read_tensor_quant(ctx.inputs, operand, qconcat_label(k));
    if (!xq.ok()) return ctx.fail(xq.status().message());
    const Tensor& x = ctx.in(operand.data);
    for (int64_t i = 0; i < x.numel(); ++i) {
      unravel_index(i, x.shape(), index);
      index[at] += start;
      const double real = double{xq->scale} * (int8_element(x, i) - xq->zero);
      store_requantized(real, yq->scale, yq->zero, y, ravel_index(index, y.shape()));
    }
    start += x.dim(static_cast<int>(at));
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(QLinearAdd, mote::reference::qlinear_add);
MOTE_REF_KERNEL(QLinearMul, mote::reference::qlinear_mul);
MOTE_REF_KERNEL(QLinearConcat, mote::reference::qlinear_concat);
