// Reference kernels of the unary elementwise ops: one scalar loop each, no
// tricks, the definition the optimised kernels are tested against.
#include <algorithm>

#include "runtime/core/kernel.hpp"

namespace mote::reference {
namespace {

template <class F>
Status map_f32(KernelContext& ctx, F f) {
  if (ctx.in(0).dtype() != DType::F32) return ctx.fail(std::string("unsupported dtype ") + dtype_name(ctx.in(0).dtype()));
  const float* x = ctx.in(0).data<float>();
  float* y = ctx.out(0).data<float>();
  for (int64_t i = 0; i < ctx.in(0).numel(); ++i) y[i] = f(x[i]);
  return {};
}

Status relu(KernelContext& ctx) { return map_f32(ctx, [](float v) { return std::max(v, 0.0f); }); }

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Relu, mote::reference::relu);
