#include "runtime/vulkan/kernels/quant_args.hpp"

#include <algorithm>
#include <cstring>

#include "runtime/vulkan/kernels/known_inputs.hpp"

namespace mote::vk {

Status require_int8_shaders(const PlanContext& ctx) {
  if (ctx.features.int8_shaders) return {};
  return ctx.unsupported("int8 ops run faster on the CPU than on a CPU-type Vulkan device");
}

Status require_int8_store_activation(const PlanContext& ctx) {
  const fb::FusedActivationT* fused = ctx.op.fused.get();
  if (!fused) return {};
  switch (fused->kind) {
    case fb::ActivationKind::None:
    case fb::ActivationKind::Relu:
    case fb::ActivationKind::Clip:
    case fb::ActivationKind::HardSwish:
    case fb::ActivationKind::SiLU:
      return {};
    default:
      return ctx.unsupported(std::string("fused ") + fb::EnumNameActivationKind(fused->kind));
  }
}

Result<TensorQuant> known_tensor_quant(const PlanContext& ctx, const QuantOperand& operand,
                                       const std::string& label) {
  MOTE_RETURN_IF_ERROR(require_known(ctx, {operand.scale, operand.zero}));
  return read_tensor_quant(ctx.inputs, operand, label);
}

Tensor requant_row_words(const std::vector<RequantRow>& rows) {
  Tensor words = Tensor::zeros(DType::I32, {std::max<int64_t>(1, 4 * static_cast<int64_t>(rows.size()))});
  int32_t* w = words.data<int32_t>();
  for (const RequantRow& row : rows) {
    w[0] = row.bias;
    w[1] = row.weight_zero;
    std::memcpy(&w[2], &row.multiplier, sizeof(float));
    w[3] = row.weight_sum;
    w += 4;
  }
  return words;
}

Tensor code_table_words(const std::array<uint8_t, 256>& table) {
  Tensor words = Tensor::zeros(DType::I32, {64});
  std::memcpy(words.raw(), table.data(), table.size());  // little-endian: byte b is word b / 4's byte b % 4
  return words;
}

}  // namespace mote::vk
