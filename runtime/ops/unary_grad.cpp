// Gradients of elementwise activations and unary math. Where the derivative
// is cheaper from the output than the input (Sigmoid, Tanh, Exp, Sqrt), the
// forward output is reused.
#include <cmath>
#include <numbers>

#include "runtime/ops/unary.hpp"
#include "runtime/train/grad_builder.hpp"

namespace mote {
namespace {

// dy where x > 0, else dy * slope (0 for Relu).
int gate_positive(GradContext& c, float slope) {
  TrainGraph& g = c.g;
  int positive = g.op1(fb::OpType::Greater, {c.in(0), g.scalar(0.0f)});
  int other = slope == 0.0f ? g.scalar(0.0f) : g.scale(c.dy(), slope);
  return g.op1(fb::OpType::Where, {positive, c.dy(), other});
}

Status relu_grad(GradContext& c) {
  c.set(0, gate_positive(c, 0.0f));
  return {};
}

Status leaky_relu_grad(GradContext& c) {
  c.set(0, gate_positive(c, activation_params(c.op).alpha));
  return {};
}

// sigmoid' = y (1 - y)
Status sigmoid_grad(GradContext& c) {
  TrainGraph& g = c.g;
  int y = c.out(0);
  c.set(0, g.mul(c.dy(), g.mul(y, g.sub(g.scalar(1.0f), y))));
  return {};
}

// tanh' = 1 - y^2
Status tanh_grad(GradContext& c) {
  TrainGraph& g = c.g;
  int y = c.out(0);
  c.set(0, g.mul(c.dy(), g.sub(g.scalar(1.0f), g.mul(y, y))));
  return {};
}

Status neg_grad(GradContext& c) {
  c.set(0, c.g.neg(c.dy()));
  return {};
}

// |x|' = sign(x) (0 at 0, a valid subgradient).
Status abs_grad(GradContext& c) {
  c.set(0, c.g.mul(c.dy(), c.g.op1(fb::OpType::Sign, {c.in(0)})));
  return {};
}

// softplus(x) = log(1 + e^x); its derivative is sigmoid(x).
Status softplus_grad(GradContext& c) {
  c.set(0, c.g.mul(c.dy(), c.g.op1(fb::OpType::Sigmoid, {c.in(0)})));
  return {};
}

Status exp_grad(GradContext& c) {
  c.set(0, c.g.mul(c.dy(), c.out(0)));
  return {};
}

Status log_grad(GradContext& c) {
  c.set(0, c.g.div(c.dy(), c.in(0)));
  return {};
}

// sqrt' = 0.5 / y
Status sqrt_grad(GradContext& c) {
  c.set(0, c.g.div(c.g.scale(c.dy(), 0.5f), c.out(0)));
  return {};
}

// hardswish(x) = x * clip(alpha x + beta, 0, 1); its derivative is 0 below
// the clip's lower bound, 1 above its upper one, 2 alpha x + beta between.
Status hard_swish_grad(GradContext& c) {
  TrainGraph& g = c.g;
  const ActivationParams p = activation_params(c.op);
  const int x = c.in(0);
  const int below = g.op1(fb::OpType::Less, {x, g.scalar(-p.beta / p.alpha)});
  const int above = g.op1(fb::OpType::Greater, {x, g.scalar((1.0f - p.beta) / p.alpha)});
  const int ramp = g.add(g.scale(x, 2.0f * p.alpha), g.scalar(p.beta));
  const int slope = g.op1(fb::OpType::Where, {below, g.scalar(0.0f), g.op1(fb::OpType::Where, {above, g.scalar(1.0f), ramp})});
  c.set(0, g.mul(c.dy(), slope));
  return {};
}

// hardsigmoid(x) = clip(alpha x + beta, 0, 1); its derivative is alpha
// where the clip passes the ramp, 0 where it clamps.
Status hard_sigmoid_grad(GradContext& c) {
  TrainGraph& g = c.g;
  const ActivationParams p = activation_params(c.op);
  const int ramp = g.add(g.scale(c.in(0), p.alpha), g.scalar(p.beta));
  const int inside =
      g.op1(fb::OpType::Where, {g.op1(fb::OpType::Less, {ramp, g.scalar(1.0f)}), g.scalar(p.alpha), g.scalar(0.0f)});
  const int slope =
      g.op1(fb::OpType::Where, {g.op1(fb::OpType::Greater, {ramp, g.scalar(0.0f)}), inside, g.scalar(0.0f)});
  c.set(0, g.mul(c.dy(), slope));
  return {};
}

// Exact: gelu(x) = x Phi(x), gelu' = Phi(x) + x phi(x), with
//   Phi(x) = 0.5 (1 + erf(x / sqrt 2)), phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
// Tanh approximation: gelu(x) = 0.5 x (1 + t), t = tanh(k (x + 0.044715 x^3)),
//   gelu' = 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 * 0.044715 x^2), k = sqrt(2 / pi).
Status gelu_grad(GradContext& c) {
  TrainGraph& g = c.g;
  const int x = c.in(0);
  const int x2 = g.mul(x, x);
  int slope;
  if (activation_params(c.op).approximate_tanh) {
    const float k = static_cast<float>(std::sqrt(2.0 / std::numbers::pi));
    const float cubic = 0.044715f;
    const int u = g.scale(g.add(x, g.scale(g.mul(x2, x), cubic)), k);
    const int t = g.op1(fb::OpType::Tanh, {u});
    const int du = g.scale(g.add(g.scalar(1.0f), g.scale(x2, 3.0f * cubic)), k);
    const int sech2 = g.sub(g.scalar(1.0f), g.mul(t, t));
    slope = g.add(g.scale(g.add(g.scalar(1.0f), t), 0.5f), g.mul(g.scale(x, 0.5f), g.mul(sech2, du)));
  } else {
    const int cdf = g.scale(g.add(g.scalar(1.0f), g.op1(fb::OpType::Erf, {g.scale(x, static_cast<float>(1.0 / std::numbers::sqrt2))})), 0.5f);
    const int pdf = g.scale(g.op1(fb::OpType::Exp, {g.scale(x2, -0.5f)}), static_cast<float>(std::numbers::inv_sqrtpi / std::numbers::sqrt2));
    slope = g.add(cdf, g.mul(x, pdf));
  }
  c.set(0, g.mul(c.dy(), slope));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_GRAD(HardSwish, mote::hard_swish_grad);
MOTE_GRAD(HardSigmoid, mote::hard_sigmoid_grad);
MOTE_GRAD(Gelu, mote::gelu_grad);
MOTE_GRAD(Relu, mote::relu_grad);
MOTE_GRAD(LeakyRelu, mote::leaky_relu_grad);
MOTE_GRAD(Sigmoid, mote::sigmoid_grad);
MOTE_GRAD(Tanh, mote::tanh_grad);
MOTE_GRAD(Neg, mote::neg_grad);
MOTE_GRAD(Abs, mote::abs_grad);
MOTE_GRAD(Softplus, mote::softplus_grad);
MOTE_GRAD(Exp, mote::exp_grad);
MOTE_GRAD(Log, mote::log_grad);
MOTE_GRAD(Sqrt, mote::sqrt_grad);

namespace mote {
namespace {

// Clip passes the gradient where min <= x <= max (bounds are optional inputs).
Status clip_grad(GradContext& c) {
  TrainGraph& g = c.g;
  int inside = -1;
  if (c.in(1) >= 0) inside = g.op1(fb::OpType::GreaterOrEqual, {c.in(0), c.in(1)});
  if (c.in(2) >= 0) {
    int below = g.op1(fb::OpType::LessOrEqual, {c.in(0), c.in(2)});
    inside = inside < 0 ? below : g.op1(fb::OpType::And, {inside, below});
  }
  c.set(0, inside < 0 ? c.dy() : g.op1(fb::OpType::Where, {inside, c.dy(), g.scalar(0.0f)}));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_GRAD(Clip, mote::clip_grad);
