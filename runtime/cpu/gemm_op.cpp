// Optimised Gemm op (the ONNX layer; the matrix product itself is sgemm in
// gemm.cpp, hence this file's name). One sgemm call: C enters as beta * C
// when it is a full matrix, or as the epilogue's row or column bias vector
// when it is broadcast along one or both dimensions, so the common
// "x * W^T + b" never copies a full C. A constant B is packed once at
// prepare().
#include <algorithm>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/cpu/fused_epilogue.hpp"
#include "runtime/cpu/gemm.hpp"
#include "runtime/cpu/thread_pool.hpp"

namespace mote::cpu {
namespace {

struct GemmOpState : KernelState {
  const void* b_data = nullptr;  // the constant B the pack was made from
  PackedMatrix packed_b;         // op(B) as [K, N]
};

Status check_inputs(const KernelContext& ctx) {
  MOTE_RETURN_IF_ERROR(fused::check_f32_inputs_and_activation(ctx));
  if (ctx.in(0).rank() != 2 || ctx.in(1).rank() != 2) return ctx.fail("A and B must be matrices");
  return {};
}

Status gemm_op_prepare(KernelContext& ctx, std::unique_ptr<KernelState>& state) {
  MOTE_RETURN_IF_ERROR(check_inputs(ctx));
  const Tensor& b = ctx.in(1);
  if (!b.raw()) return {};  // B is computed at run time
  const bool trans_b = attrs<fb::GemmAttrsT>(ctx.op).trans_b;
  auto s = std::make_unique<GemmOpState>();
  s->b_data = b.raw();
  const int64_t k = trans_b ? b.dim(1) : b.dim(0), n = trans_b ? b.dim(0) : b.dim(1);
  s->packed_b = pack_b(trans_b, k, n, b.data<float>(), b.dim(1));
  state = std::move(s);
  return {};
}

Status gemm_op_run(KernelContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_inputs(ctx));
  const auto& at = attrs<fb::GemmAttrsT>(ctx.op);
  const Tensor& a = ctx.in(0);
  const Tensor& b = ctx.in(1);
  Tensor& out = ctx.out(0);
  float* y = out.data<float>();
  const int64_t m = out.dim(0), n = out.dim(1);
  const int64_t k = at.trans_a ? a.dim(0) : a.dim(1);
  if (m == 0 || n == 0) return {};

  GemmEpilogue epilogue = fused::gemm_epilogue(ctx.op.fused.get());
  float beta = 0.0f;
  std::vector<float> scaled_c;  // beta * C as a bias vector
  if (ctx.has_input(2) && at.beta != 0.0f) {
    const Tensor& c = ctx.in(2);
    const float* pc = c.data<float>();
    // C is [rows_c, cols_c] after right-alignment, each 1 or the output's.
    const int64_t rows_c = c.rank() == 2 ? c.dim(0) : 1;
    const int64_t cols_c = c.rank() >= 1 ? c.dim(c.rank() - 1) : 1;
    if (rows_c == 1) {  // the same for every row: a column bias
      scaled_c.resize(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j) scaled_c[static_cast<size_t>(j)] = at.beta * pc[cols_c == 1 ? 0 : j];
      epilogue.col_bias = scaled_c.data();
    } else if (cols_c == 1) {  // the same for every column: a row bias
      scaled_c.resize(static_cast<size_t>(m));
      for (int64_t i = 0; i < m; ++i) scaled_c[static_cast<size_t>(i)] = at.beta * pc[i];
      epilogue.row_bias = scaled_c.data();
    } else {  // a full matrix: the product accumulates onto a copy of it
      std::copy(pc, pc + m * n, y);
      beta = at.beta;
    }
  }

  const auto* state = static_cast<const GemmOpState*>(ctx.state);
  if (state && state->b_data == b.raw() && state->packed_b.rows() == k && state->packed_b.cols() == n) {
    sgemm(at.trans_a, m, at.alpha, a.data<float>(), a.dim(1), state->packed_b, beta, y, n, epilogue, ctx.pool);
  } else {
    sgemm(at.trans_a, at.trans_b, m, n, k, at.alpha, a.data<float>(), a.dim(1), b.data<float>(), b.dim(1), beta, y, n,
          epilogue, ctx.pool);
  }
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(Gemm, mote::cpu::gemm_op_run, mote::cpu::gemm_op_prepare);
