// Reference GatherND and ScatterND; the CPU backend runs them too. An index
// outside its dimension is an error naming it, never a stray read.
#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/reference/visit_dtype.hpp"

namespace mote::reference {
namespace {

// The element offset in data of the slice of `slice` elements that the m
// entries of `index` name (dims first .. first + m - 1), plus
// `batch_offset`; an error when an entry is out of range.
Result<int64_t> slice_offset(const Tensor& data, const int64_t* index, int64_t m, int64_t first, int64_t slice,
                             int64_t batch_offset) {
  int64_t offset = 0;
  for (int64_t k = 0; k < m; ++k) {
    const int64_t dim = data.dim(static_cast<int>(first + k));
    int64_t v = index[k];
    if (v < -dim || v >= dim) {
      return invalid_argument("index " + std::to_string(v) + " out of range for dimension " +
                              std::to_string(first + k) + " of size " + std::to_string(dim));
    }
    if (v < 0) v += dim;
    offset = offset * dim + v;
  }
  return batch_offset + offset * slice;
}

Status gather_nd(KernelContext& ctx) {
  const Tensor& data = ctx.in(0);
  const Tensor& indices = ctx.in(1);
  const int64_t b = attrs<fb::GatherNDAttrsT>(ctx.op).batch_dims;
  const int64_t m = indices.dim(indices.rank() - 1);
  const int64_t batches = dims_product(data.shape(), 0, static_cast<size_t>(b));
  const int64_t rows = indices.numel() / std::max<int64_t>(1, m) / std::max<int64_t>(1, batches);
  const int64_t slice = dims_product(data.shape(), static_cast<size_t>(b + m), data.shape().size());
  const int64_t batch_size = dims_product(data.shape(), static_cast<size_t>(b), data.shape().size());
  const size_t element = dtype_size(data.dtype());
  const char* src = static_cast<const char*>(data.raw());
  char* dst = static_cast<char*>(ctx.out(0).raw());
  for (int64_t n = 0; n < batches; ++n) {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t row = n * rows + r;
      auto at = slice_offset(data, indices.data<int64_t>() + row * m, m, b, slice, n * batch_size);
      if (!at.ok()) return ctx.fail(at.status().message());
      std::memcpy(dst + row * slice * static_cast<int64_t>(element), src + *at * static_cast<int64_t>(element),
                  static_cast<size_t>(slice) * element);
    }
  }
  return {};
}

template <class T>
Status scatter_nd_typed(KernelContext& ctx) {
  const Tensor& data = ctx.in(0);
  const Tensor& indices = ctx.in(1);
  const T* updates = ctx.in(2).data<T>();
  T* out = ctx.out(0).data<T>();
  std::copy(data.data<T>(), data.data<T>() + data.numel(), out);
  const auto reduction = attrs<fb::ScatterAttrsT>(ctx.op).reduction;
  const int64_t m = indices.dim(indices.rank() - 1);
  const int64_t rows = m == 0 ? 1 : indices.numel() / m;
  const int64_t slice = dims_product(data.shape(), static_cast<size_t>(m), data.shape().size());
  for (int64_t r = 0; r < rows; ++r) {
    auto at = slice_offset(data, indices.data<int64_t>() + r * m, m, 0, slice, 0);
    if (!at.ok()) return ctx.fail(at.status().message());
    for (int64_t e = 0; e < slice; ++e) {
      T& o = out[*at + e];
      const T u = updates[r * slice + e];
      switch (reduction) {
        case fb::ScatterReduction::Add: o = static_cast<T>(o + u); break;
        case fb::ScatterReduction::Mul: o = static_cast<T>(o * u); break;
        case fb::ScatterReduction::Max: o = std::max(o, u); break;
        case fb::ScatterReduction::Min: o = std::min(o, u); break;
        default: o = u; break;
      }
    }
  }
  return {};
}

Status scatter_nd(KernelContext& ctx) {
  Status status;
  const bool known = visit_value_type(ctx.in(0).dtype(), [&](auto type) { status = scatter_nd_typed<decltype(type)>(ctx); });
  return known ? status : ctx.fail(std::string("unsupported dtype ") + dtype_name(ctx.in(0).dtype()));
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(GatherND, mote::reference::gather_nd);
MOTE_REF_KERNEL(ScatterND, mote::reference::scatter_nd);
