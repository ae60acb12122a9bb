// Optimised CPU kernels of the unary elementwise ops.
#include <algorithm>

#include "runtime/core/kernel.hpp"
#include "runtime/cpu/thread_pool.hpp"

namespace mote::cpu {
namespace {

Status relu(KernelContext& ctx) {
  const float* x = ctx.in(0).data<float>();
  float* y = ctx.out(0).data<float>();
  ctx.pool->parallel_for(ctx.in(0).numel(), 1 << 14, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) y[i] = std::max(x[i], 0.0f);
  });
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(Relu, mote::cpu::relu);
