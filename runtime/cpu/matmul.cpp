// Optimised MatMul: sgemm per batch matrix. When B has no batch of its own
// (the weights of a linear layer) the batch of A folds into the rows of one
// product. Many small batch matrices (attention) run as parallel tasks, a few
// large ones one after the other with the threads inside sgemm. A constant B
// is packed once at prepare().
#include <algorithm>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/cpu/fused_epilogue.hpp"
#include "runtime/cpu/gemm.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/matmul_shape.hpp"

namespace mote::cpu {
namespace {

struct MatMulState : KernelState {
  const void* b_data = nullptr;      // the constant B the packs were made from
  std::vector<PackedMatrix> packed;  // one per matrix of B's own batch
};

Status matmul_prepare(KernelContext& ctx, std::unique_ptr<KernelState>& state) {
  MOTE_RETURN_IF_ERROR(fused::check_f32_inputs_and_activation(ctx));
  const Tensor& b = ctx.in(1);
  if (!b.raw()) return {};  // B is computed at run time
  auto s = resolve_matmul(ctx.in(0).shape(), b.shape());
  if (!s.ok()) return ctx.fail(s.status().message());
  auto st = std::make_unique<MatMulState>();
  st->b_data = b.raw();
  const int64_t matrices = shape_numel(s->b_batch);
  for (int64_t i = 0; i < matrices; ++i) {
    st->packed.push_back(pack_b(false, s->k, s->n, b.data<float>() + i * s->k * s->n, s->n));
  }
  state = std::move(st);
  return {};
}

Status matmul_run(KernelContext& ctx) {
  MOTE_RETURN_IF_ERROR(fused::check_f32_inputs_and_activation(ctx));
  auto resolved = resolve_matmul(ctx.in(0).shape(), ctx.in(1).shape());
  if (!resolved.ok()) return ctx.fail(resolved.status().message());
  const MatMulShape& s = *resolved;
  const float* a = ctx.in(0).data<float>();
  const float* b = ctx.in(1).data<float>();
  float* y = ctx.out(0).data<float>();
  if (ctx.out(0).numel() == 0) return {};

  const fb::FusedActivationT* act = ctx.op.fused.get();
  const GemmEpilogue epilogue = fused::gemm_epilogue(act);
  const auto* state = static_cast<const MatMulState*>(ctx.state);
  const bool use_packed = state && state->b_data == ctx.in(1).raw() &&
                          static_cast<int64_t>(state->packed.size()) == shape_numel(s.b_batch) &&
                          state->packed[0].rows() == s.k && state->packed[0].cols() == s.n;

  // out = A_matrix(a_index) * B_matrix(b_index) for `rows` rows.
  auto product = [&](const float* am, int64_t rows, int64_t b_index, float* out, ThreadPool* pool) {
    if (use_packed) {
      sgemm(false, rows, 1.0f, am, s.k, state->packed[static_cast<size_t>(b_index)], 0.0f, out, s.n, epilogue, pool);
    } else {
      sgemm(false, false, rows, s.n, s.k, 1.0f, am, s.k, b + b_index * s.k * s.n, s.n, 0.0f, out, s.n, epilogue,
            pool);
    }
  };

  const int64_t batches = s.batch_count();
  if (shape_numel(s.b_batch) == 1 && shape_numel(s.a_batch) == batches) {
    // B is one matrix and A's batch is the output's: [batches * m, k] x [k, n].
    product(a, batches * s.m, 0, y, ctx.pool);
  } else {
    // Which matrix of A and of B each output batch reads (0 strides where a
    // dimension is broadcast).
    const std::vector<int64_t> a_strides = broadcast_strides(s.a_batch, s.batch);
    const std::vector<int64_t> b_strides = broadcast_strides(s.b_batch, s.batch);
    const std::vector<int64_t> out_strides = contiguous_strides(s.batch);
    auto run_batch = [&](int64_t batch, ThreadPool* pool) {
      int64_t a_index = 0, b_index = 0;
      for (size_t d = 0; d < s.batch.size(); ++d) {
        const int64_t i = batch / out_strides[d] % s.batch[d];
        a_index += i * a_strides[d];
        b_index += i * b_strides[d];
      }
      product(a + a_index * s.m * s.k, s.m, b_index, y + batch * s.m * s.n, pool);
    };
    if (batches >= 2 * ctx.pool->size()) {
      ctx.pool->run(batches, [&](int64_t batch) { run_batch(batch, nullptr); });
    } else {
      for (int64_t batch = 0; batch < batches; ++batch) run_batch(batch, ctx.pool);
    }
  }

  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(MatMul, mote::cpu::matmul_run, mote::cpu::matmul_prepare);
