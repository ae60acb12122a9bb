#include "runtime/cpu/activation.hpp"

#include "runtime/cpu/unary_simd.hpp"

namespace mote::cpu {

void apply_fused_activation(const fb::FusedActivationT* act, float* data, int64_t n) {
  if (act == nullptr) return;
  UnaryParams p;
  switch (act->kind) {
    case fb::ActivationKind::Relu: return unary_f32(UnaryFn::kRelu, p, data, data, n);
    case fb::ActivationKind::Clip:
      p.lo = act->min;
      p.hi = act->max;
      return unary_f32(UnaryFn::kClip, p, data, data, n);
    case fb::ActivationKind::HardSwish: return unary_f32(UnaryFn::kHardSwish, p, data, data, n);
    case fb::ActivationKind::Sigmoid: return unary_f32(UnaryFn::kSigmoid, p, data, data, n);
    case fb::ActivationKind::LeakyRelu:
      p.alpha = act->alpha;
      return unary_f32(UnaryFn::kLeakyRelu, p, data, data, n);
    case fb::ActivationKind::SiLU: return unary_f32(UnaryFn::kSiLU, p, data, data, n);
    case fb::ActivationKind::HardSigmoid:
      p.alpha = act->alpha;
      p.beta = act->beta;
      return unary_f32(UnaryFn::kHardSigmoid, p, data, data, n);
    case fb::ActivationKind::None: return;
  }
}

}  // namespace mote::cpu
