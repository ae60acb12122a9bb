#include "runtime/cpu/qoutput_range.hpp"

#include <algorithm>

namespace mote::cpu {

Status set_output_range(const KernelContext& ctx, DType y_dtype, float y_scale, int32_t y_zero, QRequantize& rq) {
  const bool is_signed = y_dtype == DType::I8;
  const float type_lo = static_cast<float>((is_signed ? -128 : 0) - y_zero);
  const float type_hi = static_cast<float>((is_signed ? 127 : 255) - y_zero);
  rq.lo = type_lo;
  rq.hi = type_hi;
  rq.zero = y_zero;
  rq.dtype = y_dtype;
  const fb::FusedActivationT* act = ctx.op.fused.get();
  if (!act || act->kind == fb::ActivationKind::None) return {};
  if (act->kind == fb::ActivationKind::Relu) {
    rq.lo = std::max(rq.lo, 0.0f);
  } else if (act->kind == fb::ActivationKind::Clip) {
    // Both bounds stay inside the type's range, also for a Clip that lies
    // wholly outside it (the store relies on it: qgemm.hpp).
    rq.lo = std::min(std::max(rq.lo, act->min / y_scale), type_hi);
    rq.hi = std::max(std::min(rq.hi, act->max / y_scale), type_lo);
  } else if (act->kind == fb::ActivationKind::HardSwish || act->kind == fb::ActivationKind::SiLU) {
    // Applied in the store to the real value (qgemm.hpp), before the clamp.
    rq.activation = tile_activation(act);
    rq.y_scale = y_scale;
  } else {
    return ctx.fail("int8 kernels fuse only Relu, Clip, HardSwish and SiLU");
  }
  return {};
}

}  // namespace mote::cpu
