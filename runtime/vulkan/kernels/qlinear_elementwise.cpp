// Vulkan kernels of the int8 elementwise ops (runtime/ops/
// qlinear_elementwise.hpp, qlinear_activation.hpp): QLinearActivation and
// QLinearConcat look X's codes up in tables the host builds as the CPU
// kernels do (qlinear_table.comp, so the backends agree exactly);
// QLinearAdd and QLinearMul broadcast and requantise in f32
// (qlinear_binary.comp). Parameters must be known at plan time.
#include "runtime/ops/qlinear_elementwise.hpp"

#include "runtime/core/shape_util.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/qlinear_activation.hpp"
#include "runtime/reference/requantize.hpp"
#include "runtime/vulkan/kernels/quant_args.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/kernels/unary_codes.hpp"

namespace mote::vk {
namespace {

struct TablePush {
  uint32_t words, row_words, y_row_words, y_offset_words;
};

struct QBinaryPush {
  uint32_t n, rank;
  std::array<uint32_t, kMaxPushRank> dims, a_strides, b_strides;
  float a_scale, b_scale, c_scale;
  int32_t a_zero, b_zero, c_zero;
  float act_a, act_b;
};
static_assert(sizeof(QBinaryPush) == 112, "must match qlinear_binary.comp's push block");

uint32_t words_of(int64_t bytes) { return static_cast<uint32_t>((bytes + 3) / 4); }

// Y's bytes [e / row * y_row + y_offset + e % row] = table[X's byte e].
void dispatch_table(PlanContext& ctx, int x_input, const std::array<uint8_t, 256>& table, int64_t row, int64_t y_row,
                    int64_t y_offset) {
  const int64_t bytes = ctx.in(static_cast<size_t>(x_input)).numel();
  const TablePush push{words_of(bytes), words_of(row), words_of(y_row), words_of(y_offset)};
  const TensorArg codes = ctx.add_constant(code_table_words(table));
  ctx.dispatch_1d(ShaderId::kQlinearTable, {ctx.input(x_input), codes, ctx.output(0)}, push, push.words);
}

Status plan_qlinear_activation(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_int8_shaders(ctx));
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::U8, DType::I8, DType::F32}));
  const Tensor& x = ctx.in(kQUnaryX.data);
  if (!is_8bit(x.dtype()) || !fits_u32(x.numel())) return ctx.unsupported("X is not 8-bit or too large");
  if (!reference::fused_activation_known(ctx.op.fused.get())) return ctx.unsupported("unknown fused activation");
  MOTE_ASSIGN_OR_RETURN(TensorQuant xq, known_tensor_quant(ctx, kQUnaryX));
  MOTE_ASSIGN_OR_RETURN(TensorQuant yq, known_tensor_quant(ctx, kQUnaryY));
  if (x.numel() == 0) return {};
  const auto table = reference::code_table(x.dtype(), xq, ctx.out(0).dtype(), yq, ctx.op.fused.get());
  dispatch_table(ctx, static_cast<int>(kQUnaryX.data), table, x.numel(), x.numel(), 0);
  return {};
}

// One table dispatch per input, its rows into Y's: each must fill whole
// words (an invocation writes one).
Status plan_qlinear_concat(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_int8_shaders(ctx));
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::U8, DType::I8, DType::F32}));
  const Tensor& y = ctx.out(0);
  if (!fits_u32(y.numel())) return ctx.unsupported("more than 2^31 elements");
  auto axis = normalize_axis(attrs<fb::AxisAttrsT>(ctx.op).axis, y.rank());
  if (!axis.ok()) return axis.status();
  const AxisSplit whole = split_at_axis(y.shape(), *axis);
  MOTE_ASSIGN_OR_RETURN(TensorQuant yq, known_tensor_quant(ctx, kQConcatY));
  int64_t offset = 0;  // along the axis
  for (size_t k = 0; k < qconcat_count(ctx.inputs.size()); ++k) {
    const QuantOperand operand = qconcat_input(k);
    MOTE_ASSIGN_OR_RETURN(TensorQuant xq, known_tensor_quant(ctx, operand, qconcat_label(k)));
    const Tensor& x = ctx.in(operand.data);
    const int64_t row = x.dim(*axis) * whole.inner, y_row = whole.axis * whole.inner, y_offset = offset * whole.inner;
    offset += x.dim(*axis);
    if (x.numel() == 0) continue;
    if (row % 4 || y_row % 4 || y_offset % 4) {
      // (append: GCC 12 misreports string + literal here, bug 105651)
      return ctx.unsupported(qconcat_label(k).append("'s rows do not fill whole 32-bit words"));
    }
    dispatch_table(ctx, static_cast<int>(operand.data), reference::code_table(x.dtype(), xq, y.dtype(), yq), row,
                   y_row, y_offset);
  }
  return {};
}

Status plan_qlinear_binary(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_int8_shaders(ctx));
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::U8, DType::I8, DType::F32}));
  const Tensor& a = ctx.in(kQBinaryA.data);
  const Tensor& b = ctx.in(kQBinaryB.data);
  const Tensor& c = ctx.out(0);
  if (!is_8bit(c.dtype()) || a.dtype() != c.dtype() || b.dtype() != c.dtype()) {
    return ctx.unsupported("A, B and C are not of one 8-bit type");
  }
  if (c.rank() > kMaxPushRank) return ctx.unsupported("rank above 6");
  if (!fits_u32(c.numel())) return ctx.unsupported("more than 2^31 elements");
  // The CPU kernels apply Relu and Clip only (the op's definition).
  const fb::FusedActivationT* fused = ctx.op.fused.get();
  if (fused && fused->kind != fb::ActivationKind::None && fused->kind != fb::ActivationKind::Relu &&
      fused->kind != fb::ActivationKind::Clip) {
    return ctx.unsupported("fuses only Relu and Clip");
  }
  MOTE_ASSIGN_OR_RETURN(TensorQuant aq, known_tensor_quant(ctx, kQBinaryA));
  MOTE_ASSIGN_OR_RETURN(TensorQuant bq, known_tensor_quant(ctx, kQBinaryB));
  MOTE_ASSIGN_OR_RETURN(TensorQuant cq, known_tensor_quant(ctx, kQBinaryC));
  if (c.numel() == 0) return {};
  const FusedCode act = fused_code(fused);
  const QBinaryPush push{static_cast<uint32_t>(c.numel()),
                         static_cast<uint32_t>(c.rank()),
                         padded_dims(c.shape()),
                         broadcast_strides(a.shape(), c.shape()),
                         broadcast_strides(b.shape(), c.shape()),
                         aq.scale,
                         bq.scale,
                         cq.scale,
                         aq.zero,
                         bq.zero,
                         cq.zero,
                         act.a,
                         act.b};
  ctx.dispatch_1d(
         ShaderId::kQlinearBinary,
         {ctx.input(static_cast<int>(kQBinaryA.data)), ctx.input(static_cast<int>(kQBinaryB.data)), ctx.output(0)},
         push, (c.numel() + 3) / 4)
      .constants = {ctx.op.type == fb::OpType::QLinearMul ? 1 : 0, c.dtype() == DType::I8 ? 1 : 0, act.code};
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(QLinearActivation, mote::vk::plan_qlinear_activation);
MOTE_VK_KERNEL(QLinearConcat, mote::vk::plan_qlinear_concat);
MOTE_VK_KERNEL(QLinearAdd, mote::vk::plan_qlinear_binary);
MOTE_VK_KERNEL(QLinearMul, mote::vk::plan_qlinear_binary);
