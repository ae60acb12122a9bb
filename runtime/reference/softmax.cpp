// Reference Softmax and LogSoftmax: per slice along the axis, the max, then
// exp(x - max) summed in double.
#include <cmath>
#include <limits>

#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/softmax.hpp"
#include "runtime/reference/float_types.hpp"

namespace mote::reference {
namespace {

template <class T>
void softmax_typed(const Tensor& x, Tensor& y, const AxisSplit& s, bool log) {
  const T* in = x.data<T>();
  T* out = y.data<T>();
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      auto at = [&](int64_t k) { return (o * s.axis + k) * s.inner + i; };
      double max = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < s.axis; ++k) {
        double v = in[at(k)];
        if (std::isnan(v) || v > max) max = v;  // once NaN, stays NaN
      }
      double sum = 0.0;
      for (int64_t k = 0; k < s.axis; ++k) sum += std::exp(in[at(k)] - max);
      for (int64_t k = 0; k < s.axis; ++k) {
        double v = in[at(k)] - max;
        out[at(k)] = static_cast<T>(log ? v - std::log(sum) : std::exp(v) / sum);
      }
    }
  }
}

Status softmax_common(KernelContext& ctx, bool log) {
  const Tensor& x = ctx.in(0);
  auto axis = normalize_axis(softmax_axis_attr(ctx.op), x.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  const AxisSplit s = split_at_axis(x.shape(), *axis);
  const bool known = visit_float_type(x.dtype(), [&](auto type) {
    softmax_typed<decltype(type)>(x, ctx.out(0), s, log);
  });
  return known ? Status{} : unsupported_float_dtype(ctx, x.dtype());
}

Status softmax(KernelContext& ctx) { return softmax_common(ctx, false); }
Status log_softmax(KernelContext& ctx) { return softmax_common(ctx, true); }

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Softmax, mote::reference::softmax);
MOTE_REF_KERNEL(LogSoftmax, mote::reference::log_softmax);
