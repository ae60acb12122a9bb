// Reference reductions: every input element is folded into the output element
// it maps to (its coordinates with reduced axes zeroed). Floats accumulate in
// double; integers in 64 bits with wrap-around, then narrow like a C cast.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/reduce.hpp"

namespace mote::reference {
namespace {

enum class Kind { kMean, kSum, kMax, kMin, kProd, kL2 };

// For each input element in row-major order, calls fn(input_index, output_index).
template <class F>
void for_each_mapping(const Shape& shape, const std::vector<bool>& reduced, F fn) {
  Shape kept = reduced_shape(shape, reduced, /*keepdims=*/true);
  std::vector<int64_t> out_stride = contiguous_strides(kept);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (reduced[d]) out_stride[d] = 0;
  }
  const int64_t numel = shape_numel(shape);
  std::vector<int64_t> coord(shape.size(), 0);
  int64_t out = 0;
  for (int64_t i = 0; i < numel; ++i) {
    fn(i, out);
    for (size_t d = shape.size(); d-- > 0;) {
      out += out_stride[d];
      if (++coord[d] < shape[d]) break;
      out -= out_stride[d] * coord[d];
      coord[d] = 0;
    }
  }
}

template <class T>
Status reduce_typed(KernelContext& ctx, Kind kind, const std::vector<bool>& reduced) {
  constexpr bool kFloat = std::is_floating_point_v<T>;
  // Wide accumulator; unsigned for integers so sums and products wrap
  // instead of overflowing (undefined behaviour for signed types).
  using Acc = std::conditional_t<kFloat, double, uint64_t>;
  const Tensor& x = ctx.in(0);
  Tensor& y = ctx.out(0);
  const T* in = x.data<T>();
  T* out = y.data<T>();
  const int64_t out_numel = y.numel();

  Acc init = 0;
  if (kind == Kind::kProd) init = 1;
  std::vector<Acc> acc(static_cast<size_t>(out_numel), init);
  std::vector<T> extreme(static_cast<size_t>(out_numel),
                         kind == Kind::kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max());
  if constexpr (kFloat) {
    for (T& e : extreme)
      e = kind == Kind::kMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  }

  for_each_mapping(x.shape(), reduced, [&](int64_t i, int64_t o) {
    const T v = in[i];
    switch (kind) {
      case Kind::kMean:
      case Kind::kSum: acc[o] += static_cast<Acc>(v); break;
      case Kind::kL2: acc[o] += static_cast<Acc>(v) * static_cast<Acc>(v); break;
      case Kind::kProd: acc[o] *= static_cast<Acc>(v); break;
      case Kind::kMax:
      case Kind::kMin: {
        bool nan = false;
        if constexpr (kFloat) nan = std::isnan(v) || std::isnan(extreme[o]);
        if (nan) {
          extreme[o] = std::numeric_limits<T>::quiet_NaN();  // NaN propagates as in numpy
        } else if (kind == Kind::kMax ? v > extreme[o] : v < extreme[o]) {
          extreme[o] = v;
        }
        break;
      }
    }
  });

  int64_t count = 1;
  for (size_t d = 0; d < reduced.size(); ++d) {
    if (reduced[d]) count *= x.dim(static_cast<int>(d));
  }
  for (int64_t o = 0; o < out_numel; ++o) {
    switch (kind) {
      case Kind::kMax:
      case Kind::kMin: out[o] = extreme[o]; break;
      case Kind::kMean:
        if constexpr (kFloat) out[o] = static_cast<T>(acc[o] / static_cast<double>(count));  // 0/0 = NaN when empty
        break;
      case Kind::kL2:
        if constexpr (kFloat) out[o] = static_cast<T>(std::sqrt(acc[o]));
        break;
      case Kind::kSum:
      case Kind::kProd: out[o] = static_cast<T>(acc[o]); break;
    }
  }
  return {};
}

Status reduce(KernelContext& ctx, Kind kind) {
  const Tensor& x = ctx.in(0);
  const DType t = x.dtype();
  if (!reduce_supports_dtype(ctx.op.type, t)) return ctx.fail(std::string("unsupported dtype ") + dtype_name(t));
  auto reduced = reduce_axes_mask(attrs<fb::ReduceAttrsT>(ctx.op), ctx.has_input(1) ? &ctx.in(1) : nullptr, x.rank());
  if (!reduced.ok()) return ctx.fail(reduced.status().message());
  if (std::none_of(reduced->begin(), reduced->end(), [](bool r) { return r; })) {
    // noop_with_empty_axes: ONNX returns the input unchanged, even for ReduceL2.
    if (x.bytes()) std::memcpy(ctx.out(0).raw(), x.raw(), x.bytes());
    return {};
  }
  switch (t) {
    case DType::I32: return reduce_typed<int32_t>(ctx, kind, *reduced);
    case DType::I64: return reduce_typed<int64_t>(ctx, kind, *reduced);
    case DType::Bool: return reduce_typed<bool>(ctx, kind, *reduced);
    case DType::F64: return reduce_typed<double>(ctx, kind, *reduced);
    default: return reduce_typed<float>(ctx, kind, *reduced);
  }
}

Status reduce_mean(KernelContext& ctx) { return reduce(ctx, Kind::kMean); }
Status reduce_sum(KernelContext& ctx) { return reduce(ctx, Kind::kSum); }
Status reduce_max(KernelContext& ctx) { return reduce(ctx, Kind::kMax); }
Status reduce_min(KernelContext& ctx) { return reduce(ctx, Kind::kMin); }
Status reduce_prod(KernelContext& ctx) { return reduce(ctx, Kind::kProd); }
Status reduce_l2(KernelContext& ctx) { return reduce(ctx, Kind::kL2); }

template <class T>
void arg_reduce_typed(const Tensor& x, int axis, bool is_max, bool last, int64_t* out) {
  const AxisSplit s = split_at_axis(x.shape(), axis);
  const T* in = x.data<T>();
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      const T* slice = in + o * s.axis * s.inner + i;
      int64_t best = 0;
      for (int64_t k = 1; k < s.axis; ++k) {
        if (arg_beats(slice[k * s.inner], slice[best * s.inner], is_max, last)) best = k;
      }
      out[o * s.inner + i] = best;
    }
  }
}

Status arg_reduce(KernelContext& ctx, bool is_max) {
  const Tensor& x = ctx.in(0);
  const auto& a = attrs<fb::ArgReduceAttrsT>(ctx.op);
  auto axis = normalize_axis(a.axis, x.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  int64_t* out = ctx.out(0).data<int64_t>();
  switch (x.dtype()) {
    case DType::F32: arg_reduce_typed<float>(x, *axis, is_max, a.select_last_index, out); return {};
    case DType::F64: arg_reduce_typed<double>(x, *axis, is_max, a.select_last_index, out); return {};
    case DType::I32: arg_reduce_typed<int32_t>(x, *axis, is_max, a.select_last_index, out); return {};
    case DType::I64: arg_reduce_typed<int64_t>(x, *axis, is_max, a.select_last_index, out); return {};
    default: return ctx.fail(std::string("unsupported dtype ") + dtype_name(x.dtype()));
  }
}

Status arg_max(KernelContext& ctx) { return arg_reduce(ctx, true); }
Status arg_min(KernelContext& ctx) { return arg_reduce(ctx, false); }

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(ReduceMean, mote::reference::reduce_mean);
MOTE_REF_KERNEL(ReduceSum, mote::reference::reduce_sum);
MOTE_REF_KERNEL(ReduceMax, mote::reference::reduce_max);
MOTE_REF_KERNEL(ReduceMin, mote::reference::reduce_min);
MOTE_REF_KERNEL(ReduceProd, mote::reference::reduce_prod);
MOTE_REF_KERNEL(ReduceL2, mote::reference::reduce_l2);
MOTE_REF_KERNEL(ArgMax, mote::reference::arg_max);
MOTE_REF_KERNEL(ArgMin, mote::reference::arg_min);
