// Reference pooling: for every output element, visit every tap of its window
// (pool_window.hpp says which count); AveragePool's padding taps, with
// count_include_pad, are zeros.
#include "runtime/ops/pool.hpp"

#include <cmath>
#include <limits>

#include "runtime/core/kernel.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/reference/float_types.hpp"
#include "runtime/reference/pool_window.hpp"

namespace mote::reference {
namespace {

template <class T>
Status pool_typed(KernelContext& ctx, bool is_max) {
  const Tensor& x = ctx.in(0);
  const auto& a = attrs<fb::PoolAttrsT>(ctx.op);
  auto geometry = pool_geometry(a, x.shape());
  if (!geometry.ok()) return ctx.fail(geometry.status().message());
  const PoolGeometry g = geometry->as_3d();
  const int64_t planes = x.dim(0) * x.dim(1);
  const int64_t plane_in = g.in[0] * g.in[1] * g.in[2];
  const int64_t plane_out = g.out[0] * g.out[1] * g.out[2];
  T* out = ctx.out(0).data<T>();
  int64_t* indices = is_max && ctx.outputs.size() > 1 ? ctx.out(1).data<int64_t>() : nullptr;
  for (int64_t p = 0; p < planes; ++p) {
    const T* in = x.data<T>() + p * plane_in;
    for (int64_t o = 0; o < plane_out; ++o) {
      double max = -std::numeric_limits<double>::infinity();
      int64_t arg_max = -1;  // stays -1 when no tap lands in the input
      double sum = 0.0;
      const WindowTaps taps = visit_window(g, o, [&](int64_t index) {
        sum += in[index];
        // The first NaN or the first occurrence of the max wins.
        if (std::isnan(in[index]) ? !std::isnan(max) : in[index] > max) {
          max = in[index];
          arg_max = p * plane_in + index;  // flat index into all of X, as onnxruntime
        }
      });
      // A window with no tap in the input (possible with dilation) gives
      // -inf (an integer type's lowest value) for max and 0 for average
      // rather than a division by zero.
      const int64_t count = a.count_include_pad ? taps.padded : taps.inside;
      if (is_max && taps.inside == 0) max = static_cast<double>(max_pool_identity<T>());
      out[p * plane_out + o] = static_cast<T>(is_max ? max : (count ? sum / static_cast<double>(count) : 0.0));
      if (indices) indices[p * plane_out + o] = arg_max;
    }
  }
  return {};
}

Status pool(KernelContext& ctx, bool is_max) {
  return run_float_kernel(ctx, [&](auto type) { return pool_typed<decltype(type)>(ctx, is_max); });
}

// MaxPool also on uint8 and int8 (quantised tensors).
Status max_pool(KernelContext& ctx) {
  switch (ctx.in(0).dtype()) {
    case DType::U8: return pool_typed<uint8_t>(ctx, true);
    case DType::I8: return pool_typed<int8_t>(ctx, true);
    default: return pool(ctx, true);
  }
}
Status average_pool(KernelContext& ctx) { return pool(ctx, false); }

// One window over all spatial dims of each (n, c) plane.
template <class T>
Status global_pool_typed(KernelContext& ctx, bool is_max) {
  const Tensor& x = ctx.in(0);
  if (x.rank() < 3) return ctx.fail("expects an input of rank >= 3");
  const AxisSplit s = split_at_axis(x.shape(), 1);
  for (int64_t p = 0; p < s.outer * s.axis; ++p) {
    const T* in = x.data<T>() + p * s.inner;
    double max = -std::numeric_limits<double>::infinity();
    double sum = 0.0;
    for (int64_t i = 0; i < s.inner; ++i) {
      if (std::isnan(in[i]) || in[i] > max) max = in[i];  // NaN propagates, as in ReduceMax
      sum += in[i];
    }
    ctx.out(0).data<T>()[p] = static_cast<T>(is_max ? max : sum / static_cast<double>(s.inner));
  }
  return {};
}

Status global_pool(KernelContext& ctx, bool is_max) {
  return run_float_kernel(ctx, [&](auto type) { return global_pool_typed<decltype(type)>(ctx, is_max); });
}

Status global_max_pool(KernelContext& ctx) { return global_pool(ctx, true); }
Status global_average_pool(KernelContext& ctx) { return global_pool(ctx, false); }

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(MaxPool, mote::reference::max_pool);
MOTE_REF_KERNEL(AveragePool, mote::reference::average_pool);
MOTE_REF_KERNEL(GlobalMaxPool, mote::reference::global_max_pool);
MOTE_REF_KERNEL(GlobalAveragePool, mote::reference::global_average_pool);
