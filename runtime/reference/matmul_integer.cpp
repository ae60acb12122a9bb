// Reference MatMulInteger: one exact int64 dot product per output element
// (stored as int32), batch dimensions broadcast through strides as
// MatMul's.
#include "runtime/ops/matmul_integer.hpp"

#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/matmul_shape.hpp"
#include "runtime/ops/quantize.hpp"

namespace mote::reference {
namespace {

Status matmul_integer(KernelContext& ctx) {
  const Tensor& at = ctx.in(kMiA);
  const Tensor& bt = ctx.in(kMiB);
  auto resolved = resolve_matmul(at.shape(), bt.shape());
  if (!resolved.ok()) return ctx.fail(resolved.status().message());
  const MatMulShape& s = *resolved;
  const IntegerZeroPoints z = read_integer_zero_points(ctx, s.n);
  int32_t* y = ctx.out(0).data<int32_t>();
  for_each_matmul_batch(s, [&](int64_t batch, int64_t a_matrix, int64_t b_matrix) {
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) {
        int64_t acc = 0;
        for (int64_t k = 0; k < s.k; ++k) {
          acc += int64_t{int8_element(at, (a_matrix * s.m + i) * s.k + k) - z.a} *
                 (int8_element(bt, (b_matrix * s.k + k) * s.n + j) - z.b[static_cast<size_t>(j)]);
        }
        y[(batch * s.m + i) * s.n + j] = static_cast<int32_t>(acc);
      }
    }
  });
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(MatMulInteger, mote::reference::matmul_integer);
