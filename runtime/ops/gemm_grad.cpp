// Gemm's gradients: Y = alpha * A' B' + beta * C with A' = trans_a ? A^T : A
// and B' = trans_b ? B^T : B. Every gradient is itself one Gemm whose
// transpose flags absorb the transposes, so no Transpose op is emitted:
//   dA' = alpha dY B'^T,  dB' = alpha A'^T dY,  dC = beta * sum_to(dY).
#include "runtime/train/grad_builder.hpp"

namespace mote {
namespace {

int gemm(TrainGraph& g, int a, int b, bool ta, bool tb, float alpha) {
  fb::GemmAttrsT attrs;
  attrs.alpha = alpha;
  attrs.beta = 0.0f;
  attrs.trans_a = ta;
  attrs.trans_b = tb;
  return g.op1(fb::OpType::Gemm, {a, b}, attrs);
}

Status gemm_grad(GradContext& c) {
  const auto& a = attrs<fb::GemmAttrsT>(c.op);
  TrainGraph& g = c.g;
  const int dy = c.dy();
  if (c.wants(0)) {
    // A: dA = alpha dY B'^T; transposed A: dA = (dA')^T = alpha B' dY^T.
    c.set(0, a.trans_a ? gemm(g, c.in(1), dy, a.trans_b, true, a.alpha) : gemm(g, dy, c.in(1), false, !a.trans_b, a.alpha));
  }
  if (c.wants(1)) {
    // B: dB = alpha A'^T dY; transposed B: dB = (dB')^T = alpha dY^T A'.
    c.set(1, a.trans_b ? gemm(g, dy, c.in(0), true, a.trans_a, a.alpha) : gemm(g, c.in(0), dy, !a.trans_a, false, a.alpha));
  }
  if (c.wants(2)) c.set(2, g.scale(g.sum_to(dy, g.shape(c.in(2))), a.beta));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_GRAD(Gemm, mote::gemm_grad);
