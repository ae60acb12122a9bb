// Reference Gemm: Y[i, j] = alpha * sum_k op(A)[i, k] * op(B)[k, j]
// + beta * C[i, j] (C broadcast), accumulated in double.
#include "runtime/core/kernel.hpp"
#include "runtime/reference/float_types.hpp"
#include "runtime/reference/fused_activation.hpp"

namespace mote::reference {
namespace {

template <class T>
Status gemm_typed(KernelContext& ctx) {
  if (!fused_activation_known(ctx.op.fused.get())) return ctx.fail("unknown fused activation");
  const auto& at = attrs<fb::GemmAttrsT>(ctx.op);
  const Tensor& a = ctx.in(0);
  const Tensor& b = ctx.in(1);
  Tensor& y = ctx.out(0);
  const int64_t m = y.dim(0);
  const int64_t n = y.dim(1);
  const int64_t k = at.trans_a ? a.dim(0) : a.dim(1);
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();

  // C's strides as seen from the output: 0 along broadcast dimensions.
  const T* pc = nullptr;
  int64_t c_row_stride = 0, c_col_stride = 0;
  if (ctx.has_input(2)) {
    const Tensor& c = ctx.in(2);
    pc = c.data<T>();
    if (c.rank() == 2) {
      c_row_stride = c.dim(0) == 1 ? 0 : c.dim(1);
      c_col_stride = c.dim(1) == 1 ? 0 : 1;
    } else if (c.rank() == 1) {
      c_col_stride = c.dim(0) == 1 ? 0 : 1;
    }
  }

  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0.0;
      for (int64_t p = 0; p < k; ++p) {
        double av = at.trans_a ? pa[p * m + i] : pa[i * k + p];
        double bv = at.trans_b ? pb[j * k + p] : pb[p * n + j];
        acc += av * bv;
      }
      double v = double{at.alpha} * acc;
      if (pc) v += double{at.beta} * pc[i * c_row_stride + j * c_col_stride];
      y.data<T>()[i * n + j] = static_cast<T>(apply_fused_activation(ctx.op.fused.get(), v));
    }
  }
  return {};
}

Status gemm(KernelContext& ctx) {
  return run_float_kernel(ctx, [&](auto type) { return gemm_typed<decltype(type)>(ctx); });
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Gemm, mote::reference::gemm);
