// Reference GatherElements and ScatterElements: every index element in
// order; the optimised CPU backend runs these too (they are rarely hot).
#include "runtime/ops/gather_elements.hpp"

#include <algorithm>

#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/reference/element_index.hpp"
#include "runtime/reference/visit_dtype.hpp"

namespace mote::reference {
namespace {

// Calls place(k, target) for each element k of indices, `target` being the
// linear position in data it names.
template <class Place>
Status for_each_target(const KernelContext& ctx, const Tensor& data, const Tensor& indices, int64_t axis_attr,
                       Place place) {
  auto axis = normalize_axis(axis_attr, data.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  const size_t a = static_cast<size_t>(*axis);
  std::vector<int64_t> index;
  for (int64_t k = 0; k < indices.numel(); ++k) {
    unravel_index(k, indices.shape(), index);
    auto along = element_index(indices, k, data.dim(*axis));
    if (!along.ok()) return ctx.fail(along.status().message());
    index[a] = *along;
    place(k, ravel_index(index, data.shape()));
  }
  return {};
}

Status gather_elements(KernelContext& ctx) {
  const Tensor& data = ctx.in(0);
  Tensor& out = ctx.out(0);
  return for_each_target(ctx, data, ctx.in(1), attrs<fb::AxisAttrsT>(ctx.op).axis,
                         [&](int64_t k, int64_t from) { copy_element_at(data, from, out, k); });
}

Status scatter_elements(KernelContext& ctx) {
  const Tensor& data = ctx.in(0);
  const Tensor& updates = ctx.in(2);
  Tensor& out = ctx.out(0);
  const auto& a = attrs<fb::ScatterAttrsT>(ctx.op);
  bool known = visit_value_type(data.dtype(), [&](auto type) {
    using T = decltype(type);
    std::copy(data.data<T>(), data.data<T>() + data.numel(), out.data<T>());
  });
  if (!known) return ctx.fail(std::string("unsupported dtype ") + dtype_name(data.dtype()));
  Status status;
  visit_value_type(data.dtype(), [&](auto type) {
    using T = decltype(type);
    T* o = out.data<T>();
    const T* u = updates.data<T>();
    status = for_each_target(ctx, data, ctx.in(1), a.axis, [&](int64_t k, int64_t to) {
      switch (a.reduction) {
        case fb::ScatterReduction::Add: o[to] = static_cast<T>(o[to] + u[k]); break;
        case fb::ScatterReduction::Mul: o[to] = static_cast<T>(o[to] * u[k]); break;
        case fb::ScatterReduction::Max: o[to] = std::max(o[to], u[k]); break;
        case fb::ScatterReduction::Min: o[to] = std::min(o[to], u[k]); break;
        default: o[to] = u[k]; break;
      }
    });
  });
  return status;
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(GatherElements, mote::reference::gather_elements);
MOTE_REF_KERNEL(ScatterElements, mote::reference::scatter_elements);
