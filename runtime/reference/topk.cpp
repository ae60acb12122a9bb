// Reference TopK: per slice along the axis, a stable sort of all indices by
// value (stability gives ONNX's lower-index-first ties), then the first K.
#include <algorithm>
#include <numeric>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/topk.hpp"

namespace mote::reference {
namespace {

template <class T>
void topk_typed(const Tensor& x, int axis, int64_t k, bool largest, Tensor& values, Tensor* indices) {
  const AxisSplit s = split_at_axis(x.shape(), axis);
  const T* in = x.data<T>();
  std::vector<int64_t> order(static_cast<size_t>(s.axis));
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      auto at = [&](int64_t j) { return in[(o * s.axis + j) * s.inner + i]; };
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return largest ? topk_greater(at(a), at(b)) : topk_greater(at(b), at(a));
      });
      for (int64_t j = 0; j < k; ++j) {
        const int64_t dst = (o * k + j) * s.inner + i;
        values.data<T>()[dst] = at(order[static_cast<size_t>(j)]);
        if (indices) indices->data<int64_t>()[dst] = order[static_cast<size_t>(j)];
      }
    }
  }
}

Status topk(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  if (x.rank() < 1) return ctx.fail("input X must have rank >= 1");
  const auto& a = attrs<fb::TopKAttrsT>(ctx.op);
  auto axis = normalize_axis(a.axis, x.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  auto k = topk_k(ctx.has_input(1) ? &ctx.in(1) : nullptr, x.dim(*axis));
  if (!k.ok()) return ctx.fail(k.status().message());
  Tensor* indices = ctx.outputs.size() > 1 ? ctx.outputs[1] : nullptr;
  switch (x.dtype()) {
    case DType::F32: topk_typed<float>(x, *axis, *k, a.largest, ctx.out(0), indices); return {};
    case DType::I32: topk_typed<int32_t>(x, *axis, *k, a.largest, ctx.out(0), indices); return {};
    case DType::I64: topk_typed<int64_t>(x, *axis, *k, a.largest, ctx.out(0), indices); return {};
    default: return ctx.fail(std::string("unsupported dtype ") + dtype_name(x.dtype()));
  }
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(TopK, mote::reference::topk);
