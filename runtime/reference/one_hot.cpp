// Reference OneHot, Hardmax and EyeLike (runtime/ops/one_hot.cpp); the CPU
// backend runs them too.
#include <cmath>
#include <cstring>

#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/reference/element_index.hpp"

namespace mote::reference {
namespace {

// Writes element `src` of `from` (one element of out's dtype) to out[i].
void put(const Tensor& from, int64_t src, Tensor& out, int64_t i) { copy_element_at(from, src, out, i); }

Status one_hot(KernelContext& ctx) {
  const Tensor& indices = ctx.in(0);
  const Tensor& values = ctx.in(2);
  Tensor& out = ctx.out(0);
  auto axis = normalize_axis(attrs<fb::AxisAttrsT>(ctx.op).axis, indices.rank() + 1);
  if (!axis.ok()) return ctx.fail(axis.status().message());
  const AxisSplit s = split_at_axis(out.shape(), *axis);
  const std::vector<double> index = indices.to_doubles();
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t d = 0; d < s.axis; ++d) {
      for (int64_t i = 0; i < s.inner; ++i) {
        double k = index[static_cast<size_t>(o * s.inner + i)];
        if (k < 0) k += static_cast<double>(s.axis);
        put(values, static_cast<double>(d) == std::trunc(k) ? 1 : 0, out, (o * s.axis + d) * s.inner + i);
      }
    }
  }
  return {};
}

template <class T>
void hardmax_typed(const Tensor& x, int axis, Tensor& out) {
  const AxisSplit s = split_at_axis(x.shape(), axis);
  const T* in = x.data<T>();
  T* y = out.data<T>();
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      int64_t best = 0;
      for (int64_t d = 0; d < s.axis; ++d) {
        const int64_t at = (o * s.axis + d) * s.inner + i;
        y[at] = 0;
        if (in[at] > in[(o * s.axis + best) * s.inner + i]) best = d;
      }
      if (s.axis > 0) y[(o * s.axis + best) * s.inner + i] = 1;
    }
  }
}

Status hardmax(KernelContext& ctx) {
  auto axis = normalize_axis(attrs<fb::AxisAttrsT>(ctx.op).axis, ctx.in(0).rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  switch (ctx.in(0).dtype()) {
    case DType::F32: hardmax_typed<float>(ctx.in(0), *axis, ctx.out(0)); return {};
    case DType::F64: hardmax_typed<double>(ctx.in(0), *axis, ctx.out(0)); return {};
    default: return ctx.fail(std::string("unsupported dtype ") + dtype_name(ctx.in(0).dtype()));
  }
}

Status eye_like(KernelContext& ctx) {
  Tensor& out = ctx.out(0);
  const int64_t k = attrs<fb::EyeLikeAttrsT>(ctx.op).k;
  const int64_t cols = out.dim(1);
  std::memset(out.raw(), 0, static_cast<size_t>(out.numel()) * dtype_size(out.dtype()));
  Tensor one = Tensor::zeros(out.dtype(), {1});
  switch (out.dtype()) {
    case DType::F32: one.data<float>()[0] = 1.0f; break;
    case DType::F64: one.data<double>()[0] = 1.0; break;
    case DType::F16: one.data<uint16_t>()[0] = 0x3c00; break;  // 1.0 in binary16
    case DType::I32: one.data<int32_t>()[0] = 1; break;
    case DType::I64: one.data<int64_t>()[0] = 1; break;
    case DType::I8: one.data<int8_t>()[0] = 1; break;
    case DType::U8: one.data<uint8_t>()[0] = 1; break;
    case DType::Bool: one.data<bool>()[0] = true; break;
  }
  for (int64_t r = 0; r < out.dim(0); ++r) {
    if (r + k >= 0 && r + k < cols) put(one, 0, out, r * cols + r + k);
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(OneHot, mote::reference::one_hot);
MOTE_REF_KERNEL(Hardmax, mote::reference::hardmax);
MOTE_REF_KERNEL(EyeLike, mote::reference::eye_like);
