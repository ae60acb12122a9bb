// CPU Dropout: the reference's per-element hash (runtime/ops/dropout.hpp),
// split over the thread pool; the mask depends on the element index only, so
// the split cannot change it.
#include <algorithm>

#include "runtime/core/kernel.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/dropout.hpp"

namespace mote::cpu {
namespace {

Status dropout(KernelContext& ctx) {
  const auto& a = attrs<fb::DropoutAttrsT>(ctx.op);
  const float* x = ctx.in(0).data<float>();
  float* y = ctx.out(0).data<float>();
  const int64_t n = ctx.in(0).numel();
  if (!a.training_mode) {
    if (y != x) std::copy(x, x + n, y);
    return {};
  }
  if (!ctx.has_input(1)) return ctx.fail("input 'step' is required with training_mode = 1");
  auto mask = dropout_mask(a, ctx.in(1));
  if (!mask.ok()) return ctx.fail(mask.status().message());
  const DropoutMask m = *mask;
  ctx.pool->parallel_for(n, 1 << 14, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) y[i] = m.keep(static_cast<uint32_t>(i)) ? x[i] * m.scale : 0.0f;
  });
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(Dropout, mote::cpu::dropout);
