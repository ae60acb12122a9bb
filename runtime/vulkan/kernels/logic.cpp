// Vulkan kernels of the ops with bool conditions or results: Where
// (where.comp), the comparisons and And / Or / Not (compare.comp), all with
// ONNX broadcasting up to rank 6.
#include "runtime/vulkan/kernels/copy_strided.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"

namespace mote::vk {
namespace {

struct WherePush {
  uint32_t n, rank;
  std::array<uint32_t, kMaxPushRank> dims, c_strides, x_strides, y_strides;
};

Status check_output(const PlanContext& ctx) {
  if (ctx.out(0).rank() > kMaxPushRank) return ctx.unsupported("rank above 6");
  if (!fits_u32(ctx.out(0).numel())) return ctx.unsupported("more than 2^31 elements");
  return {};
}

Status plan_where(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_output(ctx));
  const ElementKind kind = element_kind(ctx.out(0).dtype());
  if (kind != kKindFloat && kind != kKindWord && kind != kKindDword) {
    return ctx.unsupported(std::string("values of dtype ") + dtype_name(ctx.out(0).dtype()));
  }
  const Shape& out = ctx.out(0).shape();
  WherePush push{static_cast<uint32_t>(ctx.out(0).numel()), static_cast<uint32_t>(out.size()), padded_dims(out),
                 broadcast_strides(ctx.in(0).shape(), out), broadcast_strides(ctx.in(1).shape(), out),
                 broadcast_strides(ctx.in(2).shape(), out)};
  ctx.dispatch_1d(ShaderId::kWhere, {ctx.input(0), ctx.input(1), ctx.input(2), ctx.output(0)}, push,
                  ctx.out(0).numel())
      .constants = {kind};
  return {};
}

// compare.comp's OP and KIND codes.
int compare_op(fb::OpType type) {
  switch (type) {
    case fb::OpType::Equal: return 0;
    case fb::OpType::Less: return 1;
    case fb::OpType::Greater: return 2;
    case fb::OpType::LessOrEqual: return 3;
    case fb::OpType::GreaterOrEqual: return 4;
    case fb::OpType::And: return 5;
    case fb::OpType::Or: return 6;
    default: return 7;  // Not
  }
}

int compare_kind(DType dtype) {
  switch (dtype) {
    case DType::F32: return 0;
    case DType::I32: return 1;
    case DType::I64: return 2;
    case DType::Bool: return 3;
    default: return -1;
  }
}

struct ComparePush {
  uint32_t n, rank;
  std::array<uint32_t, kMaxPushRank> dims, a_strides, b_strides;
};

Status plan_compare(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_output(ctx));
  const int kind = compare_kind(ctx.in(0).dtype());
  if (kind < 0) return ctx.unsupported(std::string("inputs of dtype ") + dtype_name(ctx.in(0).dtype()));
  const bool unary = ctx.op.type == fb::OpType::Not;
  const int b = unary ? 0 : 1;  // Not reads its input as both operands
  if (ctx.in(static_cast<size_t>(b)).dtype() != ctx.in(0).dtype()) return ctx.unsupported("mixed input dtypes");
  const Shape& out = ctx.out(0).shape();
  ComparePush push{static_cast<uint32_t>(ctx.out(0).numel()), static_cast<uint32_t>(out.size()), padded_dims(out),
                   broadcast_strides(ctx.in(0).shape(), out), broadcast_strides(ctx.in(static_cast<size_t>(b)).shape(), out)};
  ctx.dispatch(ShaderId::kCompare, {ctx.input(0), ctx.input(b), ctx.output(0)}, push,
               ctx.groups_1d((ctx.out(0).numel() + 3) / 4, 64))
      .constants = {compare_op(ctx.op.type), kind};
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(Where, mote::vk::plan_where);
MOTE_VK_KERNEL(Equal, mote::vk::plan_compare);
MOTE_VK_KERNEL(Less, mote::vk::plan_compare);
MOTE_VK_KERNEL(Greater, mote::vk::plan_compare);
MOTE_VK_KERNEL(LessOrEqual, mote::vk::plan_compare);
MOTE_VK_KERNEL(GreaterOrEqual, mote::vk::plan_compare);
MOTE_VK_KERNEL(And, mote::vk::plan_compare);
MOTE_VK_KERNEL(Or, mote::vk::plan_compare);
MOTE_VK_KERNEL(Not, mote::vk::plan_compare);
