// Optimised TopK: slices along the axis are independent tasks. Small K keeps
// a running sorted list of the best K (one comparison for most elements);
// larger K copies the slice's (value, index) pairs, selects the first K with
// nth_element and sorts only those: O(n + K log K) rather than a full sort.
// Output is always sorted, which sorted = 0 allows.
#include <algorithm>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/topk.hpp"

namespace mote::cpu {
namespace {

// Elements below which splitting work over threads costs more than it saves.
constexpr int64_t kGrainElements = 1 << 14;
// Up to this K, a running sorted list of the best K beats selecting.
constexpr int64_t kSmallK = 16;

template <class T>
struct Entry {
  T value;
  int64_t index;
};

template <class T>
void topk_typed(ThreadPool& pool, const Tensor& x, int axis, int64_t k, bool largest, T* values, int64_t* indices) {
  const AxisSplit s = split_at_axis(x.shape(), axis);
  const T* in = x.data<T>();
  auto before = [largest](const Entry<T>& a, const Entry<T>& b) {
    return topk_before(a.value, a.index, b.value, b.index, largest);
  };
  pool.parallel_for(s.outer * s.inner, std::max<int64_t>(1, kGrainElements / std::max<int64_t>(s.axis, 1)),
                    [&](int64_t begin, int64_t end) {
                      std::vector<Entry<T>> entries(static_cast<size_t>(s.axis));
                      for (int64_t slice = begin; slice < end; ++slice) {
                        const int64_t o = slice / s.inner, i = slice % s.inner;
                        const T* src = in + o * s.axis * s.inner + i;
                        const int64_t dst = o * k * s.inner + i;
                        if (k == 0) continue;
                        if (k <= kSmallK) {
                          // Keep the best K seen so far, sorted; most elements lose to the
                          // current K-th and cost one comparison.
                          for (int64_t j = 0; j < k; ++j) entries[static_cast<size_t>(j)] = {src[j * s.inner], j};
                          std::sort(entries.begin(), entries.begin() + k, before);
                          for (int64_t j = k; j < s.axis; ++j) {
                            const Entry<T> e{src[j * s.inner], j};
                            if (!before(e, entries[static_cast<size_t>(k - 1)])) continue;
                            int64_t pos = k - 1;
                            for (; pos > 0 && before(e, entries[static_cast<size_t>(pos - 1)]); --pos) {
                              entries[static_cast<size_t>(pos)] = entries[static_cast<size_t>(pos - 1)];
                            }
                            entries[static_cast<size_t>(pos)] = e;
                          }
                        } else {
                          for (int64_t j = 0; j < s.axis; ++j) entries[static_cast<size_t>(j)] = {src[j * s.inner], j};
                          const auto kth = entries.begin() + k;
                          if (k < s.axis) std::nth_element(entries.begin(), kth - 1, entries.end(), before);
                          std::sort(entries.begin(), kth, before);
                        }
                        for (int64_t j = 0; j < k; ++j) {
                          values[dst + j * s.inner] = entries[static_cast<size_t>(j)].value;
                          if (indices) indices[dst + j * s.inner] = entries[static_cast<size_t>(j)].index;
                        }
                      }
                    });
}

Status topk(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  if (x.rank() < 1) return ctx.fail("input X must have rank >= 1");
  const auto& a = attrs<fb::TopKAttrsT>(ctx.op);
  auto axis = normalize_axis(a.axis, x.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  auto k = topk_k(ctx.has_input(1) ? &ctx.in(1) : nullptr, x.dim(*axis));
  if (!k.ok()) return ctx.fail(k.status().message());
  int64_t* indices = ctx.outputs.size() > 1 && ctx.outputs[1] ? ctx.out(1).data<int64_t>() : nullptr;
  switch (x.dtype()) {
    case DType::F32: topk_typed(*ctx.pool, x, *axis, *k, a.largest, ctx.out(0).data<float>(), indices); return {};
    case DType::I32: topk_typed(*ctx.pool, x, *axis, *k, a.largest, ctx.out(0).data<int32_t>(), indices); return {};
    case DType::I64: topk_typed(*ctx.pool, x, *axis, *k, a.largest, ctx.out(0).data<int64_t>(), indices); return {};
    default: return ctx.fail(std::string("unsupported dtype ") + dtype_name(x.dtype()));
  }
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(TopK, mote::cpu::topk);
