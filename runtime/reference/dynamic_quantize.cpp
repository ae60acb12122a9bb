// Reference DynamicQuantizeLinear: the range by a plain scan (NaNs left
// out), then each element divided, rounded half to even, shifted and
// saturated in double (dynamic_quantize.hpp has the definition).
#include "runtime/ops/dynamic_quantize.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/core/kernel.hpp"

namespace mote::reference {
namespace {

Status dynamic_quantize(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  const float* v = x.data<float>();
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (std::isnan(v[i])) continue;
    lo = std::min(lo, v[i]);
    hi = std::max(hi, v[i]);
  }
  const DynamicQuantizeParams p = dynamic_quantize_params(lo, hi);
  uint8_t* y = ctx.out(0).data<uint8_t>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float scaled = v[i] / p.scale;  // f32, as the definition divides
    const double q = std::nearbyint(static_cast<double>(scaled)) + p.zero;
    y[i] = std::isnan(q) ? 0 : static_cast<uint8_t>(std::clamp(q, 0.0, 255.0));
  }
  ctx.out(1).data<float>()[0] = p.scale;
  ctx.out(2).data<uint8_t>()[0] = static_cast<uint8_t>(p.zero);
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(DynamicQuantizeLinear, mote::reference::dynamic_quantize);
