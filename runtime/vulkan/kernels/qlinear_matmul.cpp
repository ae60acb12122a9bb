// Vulkan kernel of QLinearMatMul with a constant 2-D B (a linear layer's
// weights, as mote-convert writes them): qlinear_matmul_dot.comp through
// the integer dot-product instructions where the device has them
// (DeviceFeatures::int8_dot_product) and K is a multiple of 4 (A's rows
// then lie in whole words), qlinear_matmul.comp otherwise. B is packed
// transposed once at plan time, with a table per column (bias, zero point,
// multiplier, sum of codes). A run-time B stays on the CPU.
#include "runtime/ops/qlinear_matmul.hpp"

#include <vector>

#include "runtime/vulkan/kernels/known_inputs.hpp"
#include "runtime/vulkan/kernels/quant_args.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/kernels/unary_codes.hpp"

namespace mote::vk {
namespace {

// An int32 sum holds 32,768 products of two 8-bit values (255^2 each) with
// room for the zero-point terms of the dot path.
constexpr int64_t kMaxDepth = 32768;

struct QMatMulPush {
  uint32_t n, k, columns, b_row_words;
  int32_t a_zero, y_zero;
  float y_scale, act_a, act_b;
};
static_assert(sizeof(QMatMulPush) == 36, "must match qlinear_matmul.glsl's push block");

// B [K, N] as N rows of K bytes, each padded to whole words.
Tensor packed_columns(const Tensor& b, int64_t row_words) {
  const int64_t depth = b.dim(0), columns = b.dim(1);
  Tensor packed = Tensor::zeros(DType::I32, {std::max<int64_t>(1, columns * row_words)});
  auto* out = static_cast<uint8_t*>(packed.raw());
  const auto* in = static_cast<const uint8_t*>(b.raw());
  for (int64_t k = 0; k < depth; ++k) {
    for (int64_t n = 0; n < columns; ++n) out[n * row_words * 4 + k] = in[k * columns + n];
  }
  return packed;
}

// Per column n: bias, B's zero point, a_scale * b_scale[n] as float bits,
// and the sum of the column's codes.
Tensor column_table(const QLinearMatMulParams& q, const Tensor& b, const Tensor* bias) {
  const int64_t depth = b.dim(0), columns = b.dim(1);
  std::vector<RequantRow> rows(static_cast<size_t>(columns));
  for (int64_t n = 0; n < columns; ++n) {
    const auto c = static_cast<size_t>(n);
    RequantRow& row = rows[c];
    row.bias = bias ? bias->data<int32_t>()[n] : 0;
    row.weight_zero = q.b_zero[c];
    row.multiplier = q.a_scale * q.b_scale[c];
    for (int64_t k = 0; k < depth; ++k) row.weight_sum += int8_element(b, k * columns + n);
  }
  return requant_row_words(rows);
}

Status plan_qlinear_matmul(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_int8_shaders(ctx));
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::U8, DType::I8, DType::F32, DType::I32}));
  const Tensor& a = ctx.in(kQmA);
  const Tensor& b = ctx.in(kQmB);
  const Tensor& y = ctx.out(0);
  if (!is_8bit(a.dtype()) || !is_8bit(b.dtype())) return ctx.unsupported("A or B is not 8-bit");
  if (b.rank() != 2 || !b.raw()) return ctx.unsupported("B is not a constant 2-D tensor");
  if (a.rank() < 1 || a.dim(a.rank() - 1) != b.dim(0)) return ctx.unsupported("A's last dim is not B's first");
  const int64_t depth = b.dim(0), columns = b.dim(1);
  if (depth > kMaxDepth) return ctx.unsupported("more than 32768 products per output");
  if (!fits_u32(a.numel()) || !fits_u32(y.numel())) return ctx.unsupported("more than 2^31 elements");
  MOTE_RETURN_IF_ERROR(require_known(ctx, {kQmAScale, kQmAZero, kQmBScale, kQmBZero, kQmYScale, kQmYZero, kQmBias}));
  MOTE_RETURN_IF_ERROR(require_int8_store_activation(ctx));
  MOTE_ASSIGN_OR_RETURN(QLinearMatMulParams q, read_qlinear_matmul_params(ctx.inputs, columns));
  if (y.numel() == 0) return {};
  const int64_t row_words = (depth + 3) / 4;
  const FusedCode act = fused_code(ctx.op.fused.get());
  const QMatMulPush push{static_cast<uint32_t>(y.numel()),
                         static_cast<uint32_t>(depth),
                         static_cast<uint32_t>(columns),
                         static_cast<uint32_t>(row_words),
                         q.a_zero,
                         q.y_zero,
                         q.y_scale,
                         act.a,
                         act.b};
  const TensorArg packed = ctx.add_constant(packed_columns(b, row_words));
  const TensorArg table = ctx.add_constant(column_table(q, b, optional_known(ctx, kQmBias)));
  const bool dot = ctx.features.int8_dot_product && depth % 4 == 0;
  ctx.dispatch_1d(dot ? ShaderId::kQlinearMatmulDot : ShaderId::kQlinearMatmul,
                  {ctx.input(kQmA), packed, table, ctx.output(0)}, push, (y.numel() + 3) / 4)
      .constants = {act.code, a.dtype() == DType::I8 ? 1 : 0, b.dtype() == DType::I8 ? 1 : 0,
                    q.y_dtype == DType::I8 ? 1 : 0};
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(QLinearMatMul, mote::vk::plan_qlinear_matmul);
