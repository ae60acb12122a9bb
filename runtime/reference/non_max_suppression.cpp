// Reference NonMaxSuppression (the selection is in
// runtime/ops/non_max_suppression.cpp); the CPU backend runs it too.
#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/ops/non_max_suppression.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote::reference {
namespace {

Status nms(KernelContext& ctx) {
  auto selected = non_max_suppression(ctx.in(0), ctx.in(1), optional_input(ctx, 2), optional_input(ctx, 3),
                                      optional_input(ctx, 4), attrs<fb::NmsAttrsT>(ctx.op).center_point_box);
  if (!selected.ok()) return ctx.fail(selected.status().message());
  if (static_cast<int64_t>(selected->size()) != ctx.out(0).dim(0)) return ctx.fail("selection changed since shape inference");
  int64_t* out = ctx.out(0).data<int64_t>();
  for (const auto& row : *selected) {
    for (int64_t v : row) *out++ = v;
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(NonMaxSuppression, mote::reference::nms);
