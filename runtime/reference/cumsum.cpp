// Reference CumSum and CumProd: one running total (or product) per slice
// along the axis, in double for floats and in wrapping 64-bit arithmetic for
// integers. The CPU backend runs CumProd from here.
#include <type_traits>

#include "runtime/core/kernel.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/cumsum.hpp"

namespace mote::reference {
namespace {

template <bool kProduct, class T>
void scan_typed(const Tensor& x, int axis, bool exclusive, bool reverse, T* out) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;
  const AxisSplit s = split_at_axis(x.shape(), axis);
  const T* in = x.data<T>();
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      Acc total = kProduct ? 1 : 0;
      for (int64_t step = 0; step < s.axis; ++step) {
        const int64_t k = reverse ? s.axis - 1 - step : step;
        const int64_t at = (o * s.axis + k) * s.inner + i;
        if (exclusive) out[at] = static_cast<T>(total);
        if constexpr (kProduct) {
          total *= static_cast<Acc>(in[at]);
        } else {
          total += static_cast<Acc>(in[at]);
        }
        if (!exclusive) out[at] = static_cast<T>(total);
      }
    }
  }
}

template <bool kProduct>
Status scan(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  if (x.rank() < 1) return ctx.fail("input 'x' must have rank >= 1");
  auto axis = cumsum_axis(ctx.in(1), x.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  const auto& a = attrs<fb::CumSumAttrsT>(ctx.op);
  switch (x.dtype()) {
    case DType::F32: scan_typed<kProduct>(x, *axis, a.exclusive, a.reverse, ctx.out(0).data<float>()); return {};
    case DType::I32: scan_typed<kProduct>(x, *axis, a.exclusive, a.reverse, ctx.out(0).data<int32_t>()); return {};
    case DType::I64: scan_typed<kProduct>(x, *axis, a.exclusive, a.reverse, ctx.out(0).data<int64_t>()); return {};
    default: return ctx.fail(std::string("unsupported dtype ") + dtype_name(x.dtype()));
  }
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(CumSum, mote::reference::scan<false>);
MOTE_REF_KERNEL(CumProd, mote::reference::scan<true>);
