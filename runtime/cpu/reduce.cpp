// Optimised reductions.
//
// Reduce*: size-1 axes are dropped and neighbouring axes with the same role
// merged, so any set of axes becomes alternating kept/reduced groups. The
// reduced groups are folded one at a time, innermost first, each step being a
// [outer, rows, inner] reduction: contiguous SIMD rows when inner == 1, else
// whole rows accumulated column-wise (never gathering a strided slice).
// ArgMax/ArgMin use the same two layouts for their one axis.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/cpu/row_simd.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/reduce.hpp"

namespace mote::cpu {
namespace {

enum class Kind { kMean, kSum, kMax, kMin, kProd, kL2 };

// Columns one strided task handles (its partial sums live on the stack).
constexpr int64_t kColumnBlock = 512;
// Strided sums add this many rows into a partial before it joins the total,
// so rounding error grows with rows / kRowBlock + kRowBlock, not with rows.
constexpr int64_t kRowBlock = 64;
// Elements below which splitting work over threads costs more than it saves.
constexpr int64_t kGrainElements = 1 << 14;

// One reduction step: src is [outer, rows, inner], dst is [outer, inner].
struct Step {
  int64_t outer;
  int64_t rows;
  int64_t inner;
};

// Calls fn(o, c0, width) for every block of columns of every outer slab,
// spread over the pool.
template <class F>
void for_each_column_block(ThreadPool& pool, const Step& s, F fn) {
  const int64_t blocks = (s.inner + kColumnBlock - 1) / kColumnBlock;
  const int64_t task_elements = s.rows * std::min(kColumnBlock, s.inner);
  pool.parallel_for(s.outer * blocks, std::max<int64_t>(1, kGrainElements / std::max<int64_t>(task_elements, 1)),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t task = begin; task < end; ++task) {
                        const int64_t c0 = task % blocks * kColumnBlock;
                        fn(task / blocks, c0, std::min(kColumnBlock, s.inner - c0));
                      }
                    });
}

// Calls fn(o) for every row of a contiguous step, spread over the pool.
template <class F>
void for_each_row(ThreadPool& pool, int64_t rows, int64_t row_length, F fn) {
  pool.parallel_for(rows, std::max<int64_t>(1, kGrainElements / std::max<int64_t>(row_length, 1)),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t o = begin; o < end; ++o) fn(o);
                    });
}

void reduce_step_f32(ThreadPool& pool, simd::RowOp op, const float* src, const Step& s, float* dst) {
  if (s.inner == 1) {
    for_each_row(pool, s.outer, s.rows, [&](int64_t o) { dst[o] = simd::reduce_row(op, src + o * s.rows, s.rows); });
    return;
  }
  const bool blocked = (op == simd::RowOp::kSum || op == simd::RowOp::kSumSquares) && s.rows > kRowBlock;
  for_each_column_block(pool, s, [&](int64_t o, int64_t c0, int64_t width) {
    const float* base = src + o * s.rows * s.inner + c0;
    float* acc = dst + o * s.inner + c0;
    std::fill_n(acc, width, simd::row_op_identity(op));
    if (!blocked) {
      for (int64_t k = 0; k < s.rows; ++k) simd::accumulate_row(op, acc, base + k * s.inner, width);
      return;
    }
    std::array<float, kColumnBlock> partial;
    for (int64_t k0 = 0; k0 < s.rows; k0 += kRowBlock) {
      std::fill_n(partial.begin(), width, 0.0f);
      for (int64_t k = k0; k < std::min(s.rows, k0 + kRowBlock); ++k) {
        simd::accumulate_row(op, partial.data(), base + k * s.inner, width);
      }
      simd::accumulate_row(simd::RowOp::kSum, acc, partial.data(), width);
    }
  });
}

// Integer reductions wrap around on overflow (computed unsigned: signed
// overflow is undefined behaviour). Bools only reach here for Max (any) and
// Min (all).
template <class T>
T combine_int(Kind kind, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return kind == Kind::kMax ? (a || b) : (a && b);
  } else {
    using U = std::make_unsigned_t<T>;
    switch (kind) {
      case Kind::kMax: return std::max(a, b);
      case Kind::kMin: return std::min(a, b);
      case Kind::kProd: return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
      default: return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    }
  }
}

template <class T>
T identity_int(Kind kind) {
  switch (kind) {
    case Kind::kMax: return std::numeric_limits<T>::lowest();
    case Kind::kMin: return std::numeric_limits<T>::max();
    case Kind::kProd: return 1;
    default: return 0;
  }
}

template <class T>
void reduce_step_int(ThreadPool& pool, Kind kind, const T* src, const Step& s, T* dst) {
  if (s.inner == 1) {
    for_each_row(pool, s.outer, s.rows, [&](int64_t o) {
      T acc = identity_int<T>(kind);
      for (int64_t k = 0; k < s.rows; ++k) acc = combine_int(kind, acc, src[o * s.rows + k]);
      dst[o] = acc;
    });
    return;
  }
  for_each_column_block(pool, s, [&](int64_t o, int64_t c0, int64_t width) {
    const T* base = src + o * s.rows * s.inner + c0;
    T* acc = dst + o * s.inner + c0;
    std::fill_n(acc, width, identity_int<T>(kind));
    for (int64_t k = 0; k < s.rows; ++k) {
      for (int64_t j = 0; j < width; ++j) acc[j] = combine_int(kind, acc[j], base[k * s.inner + j]);
    }
  });
}

struct Group {
  int64_t size;
  bool reduced;
};

// Folds the reduced groups of `shape` one by one into `out`; step(first,
// src, step, dst) does one. Returns false when nothing needed reducing.
template <class T, class StepFn>
bool run_steps(const T* in, const Shape& shape, const std::vector<bool>& mask, T* out, StepFn step) {
  std::vector<Group> groups;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!groups.empty() && groups.back().reduced == mask[d]) {
      groups.back().size *= shape[d];
    } else {
      groups.push_back({shape[d], mask[d]});
    }
  }
  auto has_reduced = [&] {
    return std::any_of(groups.begin(), groups.end(), [](const Group& g) { return g.reduced; });
  };
  std::unique_ptr<T[]> buffers[2];  // not vector: vector<bool> has no data()
  const T* src = in;
  bool first = true;
  while (has_reduced()) {
    // Fold the innermost reduced group (any order gives the same result).
    const size_t g = static_cast<size_t>(
        std::find_if(groups.rbegin(), groups.rend(), [](const Group& gr) { return gr.reduced; }).base() -
        groups.begin() - 1);
    Step s{1, groups[g].size, 1};
    for (size_t i = 0; i < g; ++i) s.outer *= groups[i].size;
    for (size_t i = g + 1; i < groups.size(); ++i) s.inner *= groups[i].size;
    groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(g));
    T* dst = out;
    if (has_reduced()) {
      auto& buffer = src == buffers[0].get() ? buffers[1] : buffers[0];  // not the one being read
      buffer = std::make_unique<T[]>(static_cast<size_t>(s.outer * s.inner));
      dst = buffer.get();
    }
    step(first, src, s, dst);
    src = dst;
    first = false;
  }
  return !first;
}

simd::RowOp row_op(Kind kind, bool first) {
  switch (kind) {
    case Kind::kMax: return simd::RowOp::kMax;
    case Kind::kMin: return simd::RowOp::kMin;
    case Kind::kProd: return simd::RowOp::kProd;
    case Kind::kL2: return first ? simd::RowOp::kSumSquares : simd::RowOp::kSum;
    default: return simd::RowOp::kSum;
  }
}

// What a reduction over no elements gives.
float empty_value_f32(Kind kind) {
  switch (kind) {
    case Kind::kMean: return std::numeric_limits<float>::quiet_NaN();  // 0 / 0, as numpy's mean
    case Kind::kL2: return 0.0f;
    default: return simd::row_op_identity(row_op(kind, true));
  }
}

Status reduce_f32(KernelContext& ctx, Kind kind, const std::vector<bool>& mask) {
  const Tensor& x = ctx.in(0);
  Tensor& y = ctx.out(0);
  float* out = y.data<float>();
  if (x.numel() == 0) {
    std::fill_n(out, y.numel(), empty_value_f32(kind));
    return {};
  }
  bool reduced =
      run_steps(x.data<float>(), x.shape(), mask, out, [&](bool first, const float* src, const Step& s, float* dst) {
        reduce_step_f32(*ctx.pool, row_op(kind, first), src, s, dst);
      });
  if (!reduced) {
    // Every reduced axis has size 1: each output is its single input.
    const float* in = x.data<float>();
    for (int64_t i = 0; i < y.numel(); ++i) out[i] = kind == Kind::kL2 ? std::fabs(in[i]) : in[i];
    return {};
  }
  if (kind == Kind::kMean) {
    int64_t count = 1;
    for (size_t d = 0; d < mask.size(); ++d) {
      if (mask[d]) count *= x.dim(static_cast<int>(d));
    }
    const float scale = static_cast<float>(1.0 / static_cast<double>(count));
    ctx.pool->parallel_for(y.numel(), kGrainElements, [&](int64_t begin, int64_t end) {
      simd::scale_shift_row(out + begin, end - begin, scale, 0.0f, out + begin);
    });
  } else if (kind == Kind::kL2) {
    for (int64_t i = 0; i < y.numel(); ++i) out[i] = std::sqrt(out[i]);
  }
  return {};
}

template <class T>
Status reduce_int(KernelContext& ctx, Kind kind, const std::vector<bool>& mask) {
  const Tensor& x = ctx.in(0);
  Tensor& y = ctx.out(0);
  T* out = y.data<T>();
  if (x.numel() == 0) {
    std::fill_n(out, y.numel(), identity_int<T>(kind));
    return {};
  }
  bool reduced = run_steps(x.data<T>(), x.shape(), mask, out, [&](bool, const T* src, const Step& s, T* dst) {
    reduce_step_int(*ctx.pool, kind, src, s, dst);
  });
  if (!reduced) std::copy_n(x.data<T>(), y.numel(), out);
  return {};
}

Status reduce(KernelContext& ctx, Kind kind) {
  const Tensor& x = ctx.in(0);
  const DType t = x.dtype();
  if (!reduce_supports_dtype(ctx.op.type, t)) return ctx.fail(std::string("unsupported dtype ") + dtype_name(t));
  auto mask = reduce_axes_mask(attrs<fb::ReduceAttrsT>(ctx.op), ctx.has_input(1) ? &ctx.in(1) : nullptr, x.rank());
  if (!mask.ok()) return ctx.fail(mask.status().message());
  if (std::none_of(mask->begin(), mask->end(), [](bool r) { return r; })) {
    // noop_with_empty_axes: ONNX returns the input unchanged, even for ReduceL2.
    if (x.bytes()) std::memcpy(ctx.out(0).raw(), x.raw(), x.bytes());
    return {};
  }
  switch (t) {
    case DType::I32: return reduce_int<int32_t>(ctx, kind, *mask);
    case DType::I64: return reduce_int<int64_t>(ctx, kind, *mask);
    case DType::Bool: return reduce_int<bool>(ctx, kind, *mask);
    default: return reduce_f32(ctx, kind, *mask);
  }
}

Status reduce_mean(KernelContext& ctx) { return reduce(ctx, Kind::kMean); }
Status reduce_sum(KernelContext& ctx) { return reduce(ctx, Kind::kSum); }
Status reduce_max(KernelContext& ctx) { return reduce(ctx, Kind::kMax); }
Status reduce_min(KernelContext& ctx) { return reduce(ctx, Kind::kMin); }
Status reduce_prod(KernelContext& ctx) { return reduce(ctx, Kind::kProd); }
Status reduce_l2(KernelContext& ctx) { return reduce(ctx, Kind::kL2); }

// ArgMax/ArgMin for any dtype, scalar loops; strided axes still walk whole rows.
template <class T>
void arg_reduce_scalar(ThreadPool& pool, const T* in, const AxisSplit& a, bool is_max, bool last, int64_t* out) {
  const Step s{a.outer, a.axis, a.inner};
  if (s.inner == 1) {
    for_each_row(pool, s.outer, s.rows, [&](int64_t o) {
      const T* row = in + o * s.rows;
      int64_t best = 0;
      for (int64_t k = 1; k < s.rows; ++k) {
        if (arg_beats(row[k], row[best], is_max, last)) best = k;
      }
      out[o] = best;
    });
    return;
  }
  for_each_column_block(pool, s, [&](int64_t o, int64_t c0, int64_t width) {
    const T* base = in + o * s.rows * s.inner + c0;
    int64_t* index = out + o * s.inner + c0;
    std::array<T, kColumnBlock> best;
    std::copy_n(base, width, best.begin());
    std::fill_n(index, width, 0);
    for (int64_t k = 1; k < s.rows; ++k) {
      for (int64_t j = 0; j < width; ++j) {
        if (arg_beats(base[k * s.inner + j], best[j], is_max, last)) {
          best[j] = base[k * s.inner + j];
          index[j] = k;
        }
      }
    }
  });
}

void arg_reduce_f32(ThreadPool& pool, const float* in, const AxisSplit& a, bool is_max, bool last, int64_t* out) {
  const Step s{a.outer, a.axis, a.inner};
  if (s.inner == 1) {
    for_each_row(pool, s.outer, s.rows,
                 [&](int64_t o) { out[o] = simd::arg_extreme_row(in + o * s.rows, s.rows, is_max, last); });
    return;
  }
  if (s.rows > std::numeric_limits<int32_t>::max()) {
    // The SIMD form keeps indices in 32-bit lanes next to the float values.
    arg_reduce_scalar(pool, in, a, is_max, last, out);
    return;
  }
  for_each_column_block(pool, s, [&](int64_t o, int64_t c0, int64_t width) {
    const float* base = in + o * s.rows * s.inner + c0;
    std::array<float, kColumnBlock> best;
    std::array<int32_t, kColumnBlock> index;
    std::copy_n(base, width, best.begin());
    std::fill_n(index.begin(), width, 0);
    for (int64_t k = 1; k < s.rows; ++k) {
      simd::arg_extreme_accumulate(best.data(), index.data(), base + k * s.inner, width, static_cast<int32_t>(k),
                                   is_max, last);
    }
    std::copy_n(index.begin(), width, out + o * s.inner + c0);
  });
}

Status arg_reduce(KernelContext& ctx, bool is_max) {
  const Tensor& x = ctx.in(0);
  const auto& attr = attrs<fb::ArgReduceAttrsT>(ctx.op);
  auto axis = normalize_axis(attr.axis, x.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  const AxisSplit a = split_at_axis(x.shape(), *axis);
  if (a.axis == 0) return ctx.fail("cannot take the index of an extreme over an empty axis");
  int64_t* out = ctx.out(0).data<int64_t>();
  const bool last = attr.select_last_index;
  switch (x.dtype()) {
    case DType::F32: arg_reduce_f32(*ctx.pool, x.data<float>(), a, is_max, last, out); return {};
    case DType::I32: arg_reduce_scalar(*ctx.pool, x.data<int32_t>(), a, is_max, last, out); return {};
    case DType::I64: arg_reduce_scalar(*ctx.pool, x.data<int64_t>(), a, is_max, last, out); return {};
    default: return ctx.fail(std::string("unsupported dtype ") + dtype_name(x.dtype()));
  }
}

Status arg_max(KernelContext& ctx) { return arg_reduce(ctx, true); }
Status arg_min(KernelContext& ctx) { return arg_reduce(ctx, false); }

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(ReduceMean, mote::cpu::reduce_mean);
MOTE_CPU_KERNEL(ReduceSum, mote::cpu::reduce_sum);
MOTE_CPU_KERNEL(ReduceMax, mote::cpu::reduce_max);
MOTE_CPU_KERNEL(ReduceMin, mote::cpu::reduce_min);
MOTE_CPU_KERNEL(ReduceProd, mote::cpu::reduce_prod);
MOTE_CPU_KERNEL(ReduceL2, mote::cpu::reduce_l2);
MOTE_CPU_KERNEL(ArgMax, mote::cpu::arg_max);
MOTE_CPU_KERNEL(ArgMin, mote::cpu::arg_min);
