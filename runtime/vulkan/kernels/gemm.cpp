// Vulkan kernels of Gemm and MatMul: both are one tiled product on
// matmul.comp, the operands addressed through strides (Gemm's transposes,
// MatMul's broadcast batch dimensions) so nothing is copied or repacked.
#include <algorithm>
#include <optional>

#include "runtime/core/shape_util.hpp"
#include "runtime/ops/matmul_shape.hpp"
#include "runtime/reference/fused_activation.hpp"
#include "runtime/vulkan/kernels/gemm_split.hpp"
#include "runtime/vulkan/kernels/matmul_dispatch.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/kernels/unary_codes.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

struct MatMulPush {
  uint32_t rows, cols, depth;
  uint32_t r_sr, r_sk, c_sk, c_sc, y_sr, y_sc, bias_sr, bias_sc;
  float alpha, beta, act_a, act_b;
  std::array<uint32_t, kMaxBatchDims> batch_dims, r_batch_stride, c_batch_stride;
  uint32_t k_chunk;
};
static_assert(sizeof(MatMulPush) == 100, "must match matmul_main.glsl's push block");

}  // namespace

// One dispatch of matmul.comp. The shader's columns run along the
// invocations and its rows along each invocation's registers, so the longer
// side of the output goes to the columns: Y = A x B as is, or Y^T = B^T x A^T
// (operands swapped, output written transposed) when N is the short side.
Status dispatch_matmul(PlanContext& ctx, const Product& pr) {
  const bool swap = matmul_swaps(pr);
  auto u32 = [](int64_t v) { return static_cast<uint32_t>(v); };
  MatMulPush push{};
  push.depth = u32(pr.k);
  push.alpha = pr.alpha;
  push.beta = pr.beta;
  FusedCode act = pr.apply_fused ? fused_code(ctx.op.fused.get()) : FusedCode{};
  push.act_a = act.a;
  push.act_b = act.b;
  push.batch_dims = pr.batch_dims;
  if (!swap) {
    push.rows = u32(pr.m), push.cols = u32(pr.n);
    push.r_sr = u32(pr.a_sm), push.r_sk = u32(pr.a_sk), push.c_sk = u32(pr.b_sk), push.c_sc = u32(pr.b_sn);
    push.y_sr = u32(pr.n), push.y_sc = 1;
    push.bias_sr = u32(pr.bias_sm), push.bias_sc = u32(pr.bias_sn);
    push.r_batch_stride = pr.a_batch_stride, push.c_batch_stride = pr.b_batch_stride;
  } else {
    push.rows = u32(pr.n), push.cols = u32(pr.m);
    push.r_sr = u32(pr.b_sn), push.r_sk = u32(pr.b_sk), push.c_sk = u32(pr.a_sk), push.c_sc = u32(pr.a_sm);
    push.y_sr = 1, push.y_sc = u32(pr.n);
    push.bias_sr = u32(pr.bias_sn), push.bias_sc = u32(pr.bias_sm);
    push.r_batch_stride = pr.b_batch_stride, push.c_batch_stride = pr.a_batch_stride;
  }
  MOTE_ASSIGN_OR_RETURN(GemmLaunch launch, plan_gemm_launch(ctx, push.rows, push.cols, pr.k, pr.batch));
  push.k_chunk = launch.split.k_chunk;
  // vec4s of C along the columns (matmul_main.glsl's load_c4): C's columns
  // contiguous, every row and batch of it starting at a multiple of 4
  // floats; stored as vec4s too where Y is row-major (not swapped).
  auto quad_aligned = [](uint32_t stride) { return stride % 4 == 0; };
  launch.tile.column_quads = launch.tile.takes_column_quads() && push.c_sc == 1 && quad_aligned(push.c_sk) &&
                             quad_aligned(push.cols) &&
                             std::all_of(push.c_batch_stride.begin(), push.c_batch_stride.end(), quad_aligned);
  const bool quad_stores = launch.tile.column_quads && !swap;
  const TensorArg a = pr.a.value_or(ctx.input(0)), b = pr.b.value_or(ctx.input(1));
  const TensorArg y = pr.y.value_or(ctx.output(0));
  const TensorArg partial = partial_sums(ctx, launch, push.rows, push.cols, y);
  std::vector<int32_t> constants = launch.tile.constants();
  constants.insert(constants.end(), {act.code, pr.bias ? 1 : 0, launch.split_k() ? 1 : 0, quad_stores ? 1 : 0});
  // Without a bias, binding 2 aliases A (never read).
  ctx.dispatch(launch.shader(ShaderId::kMatmul, ShaderId::kMatmulShuffle, ShaderId::kMatmulShared),
               {swap ? b : a, swap ? a : b, pr.bias.value_or(a), y, partial}, push, launch.groups,
               launch.tile.local())
      .constants = std::move(constants);
  if (launch.split_k()) {
    SplitReducePush reduce{push.rows, push.cols,  launch.split.parts, push.cols,    0,
                           push.y_sr, push.y_sc,  push.bias_sr,       push.bias_sc, push.alpha,
                           push.beta, push.act_a, push.act_b};
    dispatch_split_reduce(ctx, partial, reduce, pr.bias, std::nullopt, y, act.code);
  }
  return {};
}

namespace {

// Checks shared by both ops.
Status check_operands(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::F32}));
  if (!reference::fused_activation_known(ctx.op.fused.get())) return ctx.unsupported("unknown fused activation");
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (!ctx.has_input(i)) continue;
    if (ctx.in(i).numel() == 0) return ctx.unsupported("empty operand");
    if (!fits_u32(ctx.in(i).numel())) return ctx.unsupported("more than 2^31 elements");
  }
  if (ctx.out(0).numel() == 0) return ctx.unsupported("empty output");
  if (!fits_u32(ctx.out(0).numel())) return ctx.unsupported("more than 2^31 elements");
  return {};
}

Status plan_gemm(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_operands(ctx));
  const auto& at = attrs<fb::GemmAttrsT>(ctx.op);
  Product pr;
  pr.m = ctx.out(0).dim(0);
  pr.n = ctx.out(0).dim(1);
  pr.k = at.trans_a ? ctx.in(0).dim(0) : ctx.in(0).dim(1);
  pr.a_sm = at.trans_a ? 1 : pr.k;
  pr.a_sk = at.trans_a ? pr.m : 1;
  pr.b_sk = at.trans_b ? 1 : pr.n;
  pr.b_sn = at.trans_b ? pr.k : 1;
  pr.alpha = at.alpha;
  pr.beta = at.beta;
  if (ctx.has_input(2)) {
    // C broadcast unidirectionally to [M, N]: stride 0 along its unit dims.
    const Shape& sc = ctx.in(2).shape();
    if (sc.size() == 2) {
      pr.bias_sm = sc[0] == 1 ? 0 : sc[1];
      pr.bias_sn = sc[1] == 1 ? 0 : 1;
    } else if (sc.size() == 1) {
      pr.bias_sn = sc[0] == 1 ? 0 : 1;
    }
    pr.bias = ctx.input(2);
  }
  return dispatch_matmul(ctx, pr);
}

// A broadcast batch dimension: its size and each operand's stride along it
// in matrices (0 where the operand is broadcast).
struct BatchDim {
  int64_t size, a, b;
};

// The output batch dims with unit dims dropped and neighbours merged where
// both operands step through them contiguously (or are broadcast along both).
std::vector<BatchDim> collapse_batch(const MatMulShape& s) {
  std::vector<int64_t> as = ::mote::broadcast_strides(s.a_batch, s.batch);
  std::vector<int64_t> bs = ::mote::broadcast_strides(s.b_batch, s.batch);
  std::vector<BatchDim> dims;
  for (size_t d = 0; d < s.batch.size(); ++d) {
    int64_t size = s.batch[d];
    if (size == 1) continue;
    if (!dims.empty() && dims.back().a == as[d] * size && dims.back().b == bs[d] * size) {
      dims.back() = {dims.back().size * size, as[d], bs[d]};
    } else {
      dims.push_back({size, as[d], bs[d]});
    }
  }
  return dims;
}

Status plan_matmul(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_operands(ctx));
  auto resolved = resolve_matmul(ctx.in(0).shape(), ctx.in(1).shape());
  if (!resolved.ok()) return ctx.unsupported(resolved.status().message());
  const MatMulShape& s = *resolved;
  std::vector<BatchDim> batch = collapse_batch(s);
  Product pr;
  pr.m = s.m;
  pr.n = s.n;
  pr.k = s.k;
  // A stack of A matrices against one B is a single taller product: the
  // output rows are contiguous either way, and taller products tile better.
  if (batch.size() == 1 && batch[0].b == 0 && batch[0].a == 1) {
    pr.m *= batch[0].size;
    batch.clear();
  }
  if (batch.size() > kMaxBatchDims) return ctx.unsupported("more than 3 independent batch dimensions");
  pr.a_sm = s.k;
  pr.a_sk = 1;
  pr.b_sk = s.n;
  pr.b_sn = 1;
  size_t slot = kMaxBatchDims - batch.size();
  for (const BatchDim& d : batch) {
    pr.batch_dims[slot] = static_cast<uint32_t>(d.size);
    pr.a_batch_stride[slot] = static_cast<uint32_t>(d.a * s.m * s.k);
    pr.b_batch_stride[slot] = static_cast<uint32_t>(d.b * s.k * s.n);
    pr.batch *= d.size;
    ++slot;
  }
  return dispatch_matmul(ctx, pr);
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(Gemm, mote::vk::plan_gemm);
MOTE_VK_KERNEL(MatMul, mote::vk::plan_matmul);
