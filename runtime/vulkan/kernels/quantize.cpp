// Vulkan kernels of QuantizeLinear and DequantizeLinear between f32 and
// 8-bit tensors, per tensor or per axis (quantize_linear.comp,
// dequantize_linear.comp), so that an int8 model's float islands and its
// int8 ops stay on the GPU together. The parameters must be known at plan
// time (a converted model's are); blocked parameters, f64 and other
// integer types run on the CPU.
#include "runtime/ops/quantize.hpp"

#include <cstring>

#include "runtime/core/shape_util.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/vulkan/kernels/known_inputs.hpp"
#include "runtime/vulkan/kernels/quant_args.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"

namespace mote::vk {
namespace {

struct QuantizePush {
  uint32_t n, inner, count;
};

Status plan_quantize(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_int8_shaders(ctx));
  const bool quantize = ctx.op.type == fb::OpType::QuantizeLinear;
  const Tensor& x = ctx.in(0);
  const Tensor& codes = quantize ? ctx.out(0) : x;
  const Tensor& real = quantize ? x : ctx.out(0);
  if (!is_8bit(codes.dtype()) || real.dtype() != DType::F32 || ctx.in(1).dtype() != DType::F32) {
    return ctx.unsupported("runs between f32 and 8-bit tensors only");
  }
  if (!fits_u32(x.numel())) return ctx.unsupported("more than 2^31 elements");
  MOTE_RETURN_IF_ERROR(require_known(ctx, {1, 2}));
  const auto& a = attrs<fb::QuantizeAttrsT>(ctx.op);
  if (a.block_size > 0) return ctx.unsupported("blocked parameters");
  MOTE_RETURN_IF_ERROR(QuantParamIndex::make(x.shape(), ctx.in(1).shape(), a.axis, 0).status());
  const int64_t count = ctx.in(1).numel();
  int64_t inner = 1;
  if (count > 1) {
    MOTE_ASSIGN_OR_RETURN(int axis, normalize_axis(a.axis, x.rank()));
    inner = split_at_axis(x.shape(), axis).inner;
  }
  // Per parameter: the scale's bits and the zero point (0 when omitted).
  Tensor params = Tensor::zeros(DType::I32, {2 * count});
  const Tensor* zero = optional_known(ctx, 2);
  for (int64_t k = 0; k < count; ++k) {
    std::memcpy(params.data<int32_t>() + 2 * k, ctx.in(1).data<float>() + k, sizeof(float));
    params.data<int32_t>()[2 * k + 1] = zero ? int8_element(*zero, zero->numel() == 1 ? 0 : k) : 0;
  }
  if (x.numel() == 0) return {};
  const QuantizePush push{static_cast<uint32_t>(x.numel()), static_cast<uint32_t>(inner),
                          static_cast<uint32_t>(count)};
  const TensorArg table = ctx.add_constant(std::move(params));
  const int32_t is_signed = codes.dtype() == DType::I8 ? 1 : 0;
  if (quantize) {
    ctx.dispatch_1d(ShaderId::kQuantizeLinear, {ctx.input(0), table, ctx.output(0)}, push, (x.numel() + 3) / 4)
        .constants = {is_signed};
  } else {
    ctx.dispatch_1d(ShaderId::kDequantizeLinear, {ctx.input(0), table, ctx.output(0)}, push, x.numel()).constants = {
        is_signed};
  }
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(QuantizeLinear, mote::vk::plan_quantize);
MOTE_VK_KERNEL(DequantizeLinear, mote::vk::plan_quantize);
