// Optimised CumSum. Innermost axis: each row is one sequential scan (a running
// sum is inherently serial), rows spread over the pool. Other axes: a running
// row of totals per block of columns is added to whole contiguous rows with
// SIMD, walking the axis forwards or backwards.
#include <algorithm>
#include <array>
#include <type_traits>

#include "runtime/core/kernel.hpp"
#include "runtime/cpu/row_simd.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/cumsum.hpp"

namespace mote::cpu {
namespace {

// Columns one strided task handles; its running totals live on the stack.
constexpr int64_t kColumnBlock = 512;
// Elements below which splitting work over threads costs more than it saves.
constexpr int64_t kGrainElements = 1 << 14;

// Integers wrap around on overflow (added unsigned: signed overflow is undefined).
template <class T>
T add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

// One slice read and written with a stride; float totals run in double,
// which costs nothing in a loop bound by the add's latency anyway.
template <class T>
void scan_slice(const T* in, int64_t n, int64_t stride, bool exclusive, bool reverse, T* out) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
  Acc total = 0;
  for (int64_t step = 0; step < n; ++step) {
    const int64_t at = (reverse ? n - 1 - step : step) * stride;
    if (exclusive) out[at] = static_cast<T>(total);
    total = add<Acc>(total, static_cast<Acc>(in[at]));
    if (!exclusive) out[at] = static_cast<T>(total);
  }
}

// Columns [0, width) of one slab whose rows are `inner` apart.
template <class T>
void scan_columns(const T* in, const AxisSplit& s, int64_t width, bool exclusive, bool reverse, T* out) {
  std::array<T, kColumnBlock> total{};
  for (int64_t step = 0; step < s.axis; ++step) {
    const int64_t row = (reverse ? s.axis - 1 - step : step) * s.inner;
    if (exclusive) std::copy_n(total.begin(), width, out + row);
    if constexpr (std::is_same_v<T, float>) {
      simd::accumulate_row(simd::RowOp::kSum, total.data(), in + row, width);
    } else {
      for (int64_t j = 0; j < width; ++j) total[j] = add(total[j], in[row + j]);
    }
    if (!exclusive) std::copy_n(total.begin(), width, out + row);
  }
}

template <class T>
void cumsum_typed(ThreadPool& pool, const Tensor& x, int axis, bool exclusive, bool reverse, T* out) {
  const AxisSplit s = split_at_axis(x.shape(), axis);
  const T* in = x.data<T>();
  if (s.inner == 1) {
    pool.parallel_for(s.outer, std::max<int64_t>(1, kGrainElements / std::max<int64_t>(s.axis, 1)),
                      [&](int64_t begin, int64_t end) {
                        for (int64_t o = begin; o < end; ++o) {
                          scan_slice(in + o * s.axis, s.axis, 1, exclusive, reverse, out + o * s.axis);
                        }
                      });
    return;
  }
  const int64_t blocks = (s.inner + kColumnBlock - 1) / kColumnBlock;
  const int64_t task_elements = std::max<int64_t>(1, s.axis * std::min(kColumnBlock, s.inner));
  pool.parallel_for(
      s.outer * blocks, std::max<int64_t>(1, kGrainElements / task_elements), [&](int64_t begin, int64_t end) {
        for (int64_t task = begin; task < end; ++task) {
          const int64_t c0 = task % blocks * kColumnBlock;
          const int64_t offset = task / blocks * s.axis * s.inner + c0;
          scan_columns(in + offset, s, std::min(kColumnBlock, s.inner - c0), exclusive, reverse, out + offset);
        }
      });
}

Status cumsum(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  if (x.rank() < 1) return ctx.fail("input 'x' must have rank >= 1");
  auto axis = cumsum_axis(ctx.in(1), x.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  const auto& a = attrs<fb::CumSumAttrsT>(ctx.op);
  switch (x.dtype()) {
    case DType::F32: cumsum_typed(*ctx.pool, x, *axis, a.exclusive, a.reverse, ctx.out(0).data<float>()); return {};
    case DType::I32: cumsum_typed(*ctx.pool, x, *axis, a.exclusive, a.reverse, ctx.out(0).data<int32_t>()); return {};
    case DType::I64: cumsum_typed(*ctx.pool, x, *axis, a.exclusive, a.reverse, ctx.out(0).data<int64_t>()); return {};
    default: return ctx.fail(std::string("unsupported dtype ") + dtype_name(x.dtype()));
  }
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(CumSum, mote::cpu::cumsum);
