// Reference Dropout: a copy at inference; in training mode each element is
// kept (and scaled by 1 / (1 - ratio)) or zeroed by the hash of
// runtime/ops/dropout.hpp, one element at a time.
#include <algorithm>

#include "runtime/core/kernel.hpp"
#include "runtime/ops/dropout.hpp"

namespace mote::reference {
namespace {

Status dropout(KernelContext& ctx) {
  const auto& a = attrs<fb::DropoutAttrsT>(ctx.op);
  const float* x = ctx.in(0).data<float>();
  float* y = ctx.out(0).data<float>();
  const int64_t n = ctx.in(0).numel();
  if (!a.training_mode) {
    std::copy(x, x + n, y);
    return {};
  }
  if (!ctx.has_input(1)) return ctx.fail("input 'step' is required with training_mode = 1");
  auto mask = dropout_mask(a, ctx.in(1));
  if (!mask.ok()) return ctx.fail(mask.status().message());
  for (int64_t i = 0; i < n; ++i) {
    y[i] = mask->keep(static_cast<uint32_t>(i)) ? static_cast<float>(double{x[i]} * double{mask->scale}) : 0.0f;
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Dropout, mote::reference::dropout);
