// Vulkan kernels of the broadcasting binary float ops (binary.comp).
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

struct BinaryPush {
  uint32_t n, rank;
  std::array<uint32_t, kMaxPushRank> dims, a_strides, b_strides;
};

// Codes of binary.comp's OP constant.
int op_code(fb::OpType type) {
  switch (type) {
    case fb::OpType::Add: return 0;
    case fb::OpType::Sub: return 1;
    case fb::OpType::Mul: return 2;
    case fb::OpType::Div: return 3;
    case fb::OpType::Pow: return 4;
    case fb::OpType::Min: return 5;
    case fb::OpType::Max: return 6;
    case fb::OpType::PRelu: return 7;
    default: return 0;
  }
}

// Min and Max take any number of inputs: folded pairwise into the output,
// the first dispatch reading inputs 0 and 1, each later one the output so
// far and the next input.
Status plan_binary(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::F32}));
  const Shape& out = ctx.out(0).shape();
  if (out.size() > kMaxPushRank) return ctx.unsupported("rank above 6");
  if (!fits_u32(ctx.out(0).numel())) return ctx.unsupported("more than 2^31 elements");
  size_t count = ctx.inputs.size();
  if (count < 2) return ctx.unsupported("single-input Min/Max (a copy) runs on the CPU");
  for (size_t i = 1; i < count; ++i) {
    TensorArg a = i == 1 ? ctx.input(0) : ctx.output(0);
    const Shape& a_shape = i == 1 ? ctx.in(0).shape() : out;
    BinaryPush push{static_cast<uint32_t>(ctx.out(0).numel()), static_cast<uint32_t>(out.size()), padded_dims(out),
                    broadcast_strides(a_shape, out), broadcast_strides(ctx.in(i).shape(), out)};
    ctx.dispatch_1d(ShaderId::kBinary, {a, ctx.input(static_cast<int>(i)), ctx.output(0)}, push, ctx.out(0).numel())
        .constants = {op_code(ctx.op.type)};
  }
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(Add, mote::vk::plan_binary);
MOTE_VK_KERNEL(Sub, mote::vk::plan_binary);
MOTE_VK_KERNEL(Mul, mote::vk::plan_binary);
MOTE_VK_KERNEL(Div, mote::vk::plan_binary);
MOTE_VK_KERNEL(Pow, mote::vk::plan_binary);
MOTE_VK_KERNEL(Min, mote::vk::plan_binary);
MOTE_VK_KERNEL(Max, mote::vk::plan_binary);
MOTE_VK_KERNEL(PRelu, mote::vk::plan_binary);
