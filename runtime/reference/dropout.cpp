// Reference Dropout: a copy at inference; in training mode each element is
// kept (and scaled by 1 / (1 - ratio)) or zeroed by the hash of
// runtime/ops/dropout.hpp, one element at a time.
#include <algorithm>

#include "runtime/core/kernel.hpp"
#include "runtime/ops/dropout.hpp"
#include "runtime/reference/float_types.hpp"

namespace mote::reference {
namespace {

template <class T>
Status dropout(KernelContext& ctx) {
  const auto& a = attrs<fb::DropoutAttrsT>(ctx.op);
  const T* x = ctx.in(0).data<T>();
  T* y = ctx.out(0).data<T>();
  const int64_t n = ctx.in(0).numel();
  if (!a.training_mode) {
    std::copy(x, x + n, y);
    return {};
  }
  if (!ctx.has_input(1)) return ctx.fail("input 'step' is required with training_mode = 1");
  auto mask = dropout_mask(a, ctx.in(1));
  if (!mask.ok()) return ctx.fail(mask.status().message());
  for (int64_t i = 0; i < n; ++i) {
    y[i] = mask->keep(static_cast<uint32_t>(i)) ? static_cast<T>(double{x[i]} * double{mask->scale}) : T{0};
  }
  return {};
}

Status dropout(KernelContext& ctx) {
  Status status = unsupported_float_dtype(ctx, ctx.in(0).dtype());
  visit_float_type(ctx.in(0).dtype(), [&](auto type) { status = dropout<decltype(type)>(ctx); });
  return status;
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Dropout, mote::reference::dropout);
