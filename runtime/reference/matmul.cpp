// Reference MatMul: one dot product per output element, batch dimensions
// broadcast through strides, accumulated in double.
#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/matmul_shape.hpp"
#include "runtime/reference/float_types.hpp"
#include "runtime/reference/fused_activation.hpp"

namespace mote::reference {
namespace {

template <class T>
Status matmul_typed(KernelContext& ctx) {
  if (!fused_activation_known(ctx.op.fused.get())) return ctx.fail("unknown fused activation");
  auto resolved = resolve_matmul(ctx.in(0).shape(), ctx.in(1).shape());
  if (!resolved.ok()) return ctx.fail(resolved.status().message());
  const MatMulShape& s = *resolved;

  // Element strides of each operand's matrices along the output batch dims.
  std::vector<int64_t> a_strides = broadcast_strides(s.a_batch, s.batch);
  std::vector<int64_t> b_strides = broadcast_strides(s.b_batch, s.batch);
  std::vector<int64_t> out_strides = contiguous_strides(s.batch);
  const T* a = ctx.in(0).data<T>();
  const T* b = ctx.in(1).data<T>();
  T* y = ctx.out(0).data<T>();

  for (int64_t batch = 0; batch < s.batch_count(); ++batch) {
    int64_t a_offset = 0, b_offset = 0;
    for (size_t d = 0; d < s.batch.size(); ++d) {
      int64_t index = batch / out_strides[d] % s.batch[d];
      a_offset += index * a_strides[d];
      b_offset += index * b_strides[d];
    }
    const T* am = a + a_offset * s.m * s.k;
    const T* bm = b + b_offset * s.k * s.n;
    T* ym = y + batch * s.m * s.n;
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) {
        double acc = 0.0;
        for (int64_t p = 0; p < s.k; ++p) acc += double{am[i * s.k + p]} * double{bm[p * s.n + j]};
        ym[i * s.n + j] = static_cast<T>(apply_fused_activation(ctx.op.fused.get(), acc));
      }
    }
  }
  return {};
}

Status matmul(KernelContext& ctx) {
  return run_float_kernel(ctx, [&](auto type) { return matmul_typed<decltype(type)>(ctx); });
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(MatMul, mote::reference::matmul);
