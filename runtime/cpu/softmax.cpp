// Optimised Softmax and LogSoftmax. Innermost axis: one SIMD row at a time,
// rows spread over the pool. Other axes: the slice is strided, so instead of
// gathering it the kernel walks whole contiguous rows and keeps a running
// max/sum per column (a block of columns per task).
#include <algorithm>
#include <array>
#include <cmath>

#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/cpu/row_simd.hpp"
#include "runtime/cpu/softmax_simd.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/softmax.hpp"

namespace mote::cpu {
namespace {

// Columns one strided task handles; its running max and sum live on the stack.
constexpr int64_t kColumnBlock = 512;
// Elements below which splitting work over threads costs more than it saves.
constexpr int64_t kGrainElements = 1 << 14;

void softmax_row(const float* x, int64_t n, bool log, float* y) {
  const float max = simd::reduce_row(simd::RowOp::kMax, x, n);
  if (log) {
    const float sum = simd::exp_shifted_sum(x, n, max, nullptr);
    simd::log_softmax_row(x, n, max, std::log(sum), y);
  } else {
    const float sum = simd::exp_shifted_sum(x, n, max, y);
    simd::scale_shift_row(y, n, 1.0f / sum, 0.0f, y);
  }
}

// Columns [c0, c0 + width) of slab o: rows k of the axis are x + k * inner.
void softmax_columns(const float* x, const AxisSplit& s, int64_t width, bool log, float* y) {
  std::array<float, kColumnBlock> max, sum;
  std::copy_n(x, width, max.begin());
  for (int64_t k = 1; k < s.axis; ++k) simd::accumulate_row(simd::RowOp::kMax, max.data(), x + k * s.inner, width);
  std::fill_n(sum.begin(), width, 0.0f);
  for (int64_t k = 0; k < s.axis; ++k) {
    simd::exp_shifted_accumulate(x + k * s.inner, max.data(), width, log ? nullptr : y + k * s.inner, sum.data());
  }
  if (log) {
    for (int64_t j = 0; j < width; ++j) sum[j] = std::log(sum[j]);
    for (int64_t k = 0; k < s.axis; ++k) {
      simd::log_softmax_columns(x + k * s.inner, max.data(), sum.data(), width, y + k * s.inner);
    }
  } else {
    for (int64_t j = 0; j < width; ++j) sum[j] = 1.0f / sum[j];
    for (int64_t k = 0; k < s.axis; ++k) simd::multiply_row(y + k * s.inner, sum.data(), width, y + k * s.inner);
  }
}

Status softmax_common(KernelContext& ctx, bool log) {
  const Tensor& x = ctx.in(0);
  if (x.dtype() != DType::F32) return ctx.fail(std::string("unsupported dtype ") + dtype_name(x.dtype()));
  auto axis = normalize_axis(softmax_axis_attr(ctx.op), x.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  if (x.numel() == 0) return {};
  const AxisSplit s = split_at_axis(x.shape(), *axis);
  const float* in = x.data<float>();
  float* out = ctx.out(0).data<float>();

  if (s.inner == 1) {
    const int64_t grain = std::max<int64_t>(1, kGrainElements / s.axis);
    ctx.pool->parallel_for(s.outer, grain, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) softmax_row(in + o * s.axis, s.axis, log, out + o * s.axis);
    });
    return {};
  }
  // A task is one block of columns of one slab.
  const int64_t blocks = (s.inner + kColumnBlock - 1) / kColumnBlock;
  const int64_t task_elements = s.axis * std::min(kColumnBlock, s.inner);
  ctx.pool->parallel_for(s.outer * blocks, std::max<int64_t>(1, kGrainElements / task_elements),
                         [&](int64_t begin, int64_t end) {
                           for (int64_t task = begin; task < end; ++task) {
                             const int64_t o = task / blocks;
                             const int64_t c0 = task % blocks * kColumnBlock;
                             const int64_t offset = o * s.axis * s.inner + c0;
                             softmax_columns(in + offset, s, std::min(kColumnBlock, s.inner - c0), log, out + offset);
                           }
                         });
  return {};
}

Status softmax(KernelContext& ctx) { return softmax_common(ctx, false); }
Status log_softmax(KernelContext& ctx) { return softmax_common(ctx, true); }

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(Softmax, mote::cpu::softmax);
MOTE_CPU_KERNEL(LogSoftmax, mote::cpu::log_softmax);
