// Reference RNN, GRU and LSTM: per direction and batch row, the ONNX gate
// equations step by step in double. Rows shorter than the sequence (per
// sequence_lens) stop there: later steps of Y are zero and Y_h holds the
// last valid state. The CPU backend runs these kernels too.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/ops/recurrent.hpp"

namespace mote::reference {
namespace {

struct Activation {
  fb::RnnActivation kind;
  double alpha, beta;

  double operator()(double x) const {
    switch (kind) {
      case fb::RnnActivation::Sigmoid: return 1 / (1 + std::exp(-x));
      case fb::RnnActivation::Tanh: return std::tanh(x);
      case fb::RnnActivation::Relu: return std::max(0.0, x);
      case fb::RnnActivation::LeakyRelu: return x >= 0 ? x : alpha * x;
      case fb::RnnActivation::HardSigmoid: return std::clamp(alpha * x + beta, 0.0, 1.0);
      case fb::RnnActivation::Affine: return alpha * x + beta;
      case fb::RnnActivation::ScaledTanh: return alpha * std::tanh(beta * x);
      case fb::RnnActivation::ThresholdedRelu: return x > alpha ? x : 0.0;
      case fb::RnnActivation::Elu: return x >= 0 ? x : alpha * (std::exp(x) - 1);
      case fb::RnnActivation::Softsign: return x / (1 + std::fabs(x));
      case fb::RnnActivation::Softplus: return std::log1p(std::exp(x));
    }
    return x;
  }
};

// ONNX's default alpha / beta of an activation named without them.
Activation with_defaults(fb::RnnActivation kind) {
  switch (kind) {
    case fb::RnnActivation::LeakyRelu: return {kind, 0.01, 0};
    case fb::RnnActivation::HardSigmoid: return {kind, 0.2, 0.5};
    case fb::RnnActivation::ThresholdedRelu: return {kind, 1.0, 0};
    case fb::RnnActivation::Elu: return {kind, 1.0, 0};
    case fb::RnnActivation::ScaledTanh: return {kind, 1.0, 1.0};
    case fb::RnnActivation::Affine: return {kind, 1.0, 0.0};
    default: return {kind, 0, 0};
  }
}

// The per-direction activation list: the attribute's, or the defaults.
std::vector<Activation> activations(fb::OpType type, const fb::RecurrentAttrsT& a, int64_t directions) {
  const std::vector<fb::RnnActivation> defaults = default_recurrent_activations(type);
  std::vector<Activation> out;
  for (int64_t d = 0; d < directions; ++d) {
    for (size_t k = 0; k < defaults.size(); ++k) {
      const size_t i = static_cast<size_t>(d) * defaults.size() + k;
      if (i >= a.activations.size()) {
        out.push_back(with_defaults(defaults[k]));
        continue;
      }
      Activation f = with_defaults(a.activations[i]);
      if (i < a.activation_alpha.size()) f.alpha = a.activation_alpha[i];
      if (i < a.activation_beta.size()) f.beta = a.activation_beta[i];
      out.push_back(f);
    }
  }
  return out;
}

Status recurrent(KernelContext& ctx) {
  const fb::OpType type = ctx.op.type;
  const auto& a = attrs<fb::RecurrentAttrsT>(ctx.op);
  auto geometry = recurrent_geometry(type, a, ctx.in(0).shape(), ctx.in(1).shape(), ctx.in(2).shape());
  if (!geometry.ok()) return ctx.fail(geometry.status().message());
  const RecurrentGeometry& g = *geometry;
  const int64_t H = g.hidden, I = g.input, G = g.gates;
  const std::vector<Activation> fns = activations(type, a, g.directions);
  const size_t per_direction = fns.size() / static_cast<size_t>(g.directions);
  const float* x = ctx.in(0).data<float>();
  const Tensor* bias = ctx.has_input(3) ? &ctx.in(3) : nullptr;
  const Tensor* lengths = ctx.has_input(4) ? &ctx.in(4) : nullptr;
  const Tensor* h0 = ctx.has_input(5) ? &ctx.in(5) : nullptr;
  const bool lstm = type == fb::OpType::LSTM;
  const Tensor* c0 = lstm && ctx.has_input(6) ? &ctx.in(6) : nullptr;
  const Tensor* peep = lstm && ctx.has_input(7) ? &ctx.in(7) : nullptr;
  Tensor* y = ctx.outputs.empty() ? nullptr : ctx.outputs[0];
  Tensor* y_h = ctx.outputs.size() > 1 ? ctx.outputs[1] : nullptr;
  Tensor* y_c = ctx.outputs.size() > 2 ? ctx.outputs[2] : nullptr;
  if (y) std::fill(y->data<float>(), y->data<float>() + y->numel(), 0.0f);
  auto state_at = [&](int64_t d, int64_t b) { return g.batch_first ? (b * g.directions + d) * H : (d * g.batch + b) * H; };
  auto clip = [&](double v) { return a.clip > 0 ? std::clamp(v, -double{a.clip}, double{a.clip}) : v; };

  for (int64_t d = 0; d < g.directions; ++d) {
    const bool reverse = a.direction == fb::RnnDirection::Reverse || d == 1;
    const float* w = ctx.in(1).data<float>() + d * G * H * I;
    const float* r = ctx.in(2).data<float>() + d * G * H * H;
    const float* wb = bias ? bias->data<float>() + d * 2 * G * H : nullptr;
    const float* p = peep ? peep->data<float>() + d * 3 * H : nullptr;
    const Activation* f = &fns[static_cast<size_t>(d) * per_direction];
    for (int64_t b = 0; b < g.batch; ++b) {
      const int64_t len = lengths ? std::clamp<int64_t>(lengths->to_int64s()[static_cast<size_t>(b)], 0, g.seq) : g.seq;
      std::vector<double> h(static_cast<size_t>(H), 0.0), c(static_cast<size_t>(H), 0.0);
      for (int64_t j = 0; j < H; ++j) {
        if (h0) h[j] = h0->data<float>()[state_at(d, b) + j];
        if (c0) c[j] = c0->data<float>()[state_at(d, b) + j];
      }
      std::vector<double> xw(static_cast<size_t>(G * H)), hr(static_cast<size_t>(G * H));
      for (int64_t step = 0; step < len; ++step) {
        const int64_t t = reverse ? len - 1 - step : step;
        const float* xt = x + (g.batch_first ? (b * g.seq + t) : (t * g.batch + b)) * I;
        // x W^T + Wb and h R^T + Rb for every gate row.
        for (int64_t k = 0; k < G * H; ++k) {
          double sx = wb ? wb[k] : 0.0, sh = wb ? wb[G * H + k] : 0.0;
          for (int64_t i = 0; i < I; ++i) sx += static_cast<double>(xt[i]) * w[k * I + i];
          for (int64_t m = 0; m < H; ++m) sh += h[m] * r[k * H + m];
          xw[k] = sx;
          hr[k] = sh;
        }
        std::vector<double> next(static_cast<size_t>(H));
        if (type == fb::OpType::RNN) {
          for (int64_t j = 0; j < H; ++j) next[j] = f[0](clip(xw[j] + hr[j]));
        } else if (type == fb::OpType::GRU) {
          // Gates z, r, h. The candidate uses r * (h R_h^T + Rb_h) when
          // linear_before_reset, else (r * h) R_h^T + Rb_h.
          std::vector<double> z(static_cast<size_t>(H)), reset(static_cast<size_t>(H));
          for (int64_t j = 0; j < H; ++j) {
            z[j] = f[0](clip(xw[j] + hr[j]));
            reset[j] = f[0](clip(xw[H + j] + hr[H + j]));
          }
          for (int64_t j = 0; j < H; ++j) {
            double recurrent_part;
            if (a.linear_before_reset) {
              recurrent_part = reset[j] * hr[2 * H + j];
            } else {
              recurrent_part = wb ? wb[G * H + 2 * H + j] : 0.0;
              for (int64_t m = 0; m < H; ++m) recurrent_part += reset[m] * h[m] * r[(2 * H + j) * H + m];
            }
            const double candidate = f[1](clip(xw[2 * H + j] + recurrent_part));
            next[j] = (1 - z[j]) * candidate + z[j] * h[j];
          }
        } else {
          // Gates i, o, f, c; peepholes P = [Pi, Po, Pf].
          for (int64_t j = 0; j < H; ++j) {
            const double in_gate = f[0](clip(xw[j] + hr[j] + (p ? p[j] * c[j] : 0.0)));
            const double forget =
                a.input_forget ? 1 - in_gate : f[0](clip(xw[2 * H + j] + hr[2 * H + j] + (p ? p[2 * H + j] * c[j] : 0.0)));
            const double cell = f[1](clip(xw[3 * H + j] + hr[3 * H + j]));
            c[j] = forget * c[j] + in_gate * cell;
            const double out_gate = f[0](clip(xw[H + j] + hr[H + j] + (p ? p[H + j] * c[j] : 0.0)));
            next[j] = out_gate * f[2](c[j]);
          }
        }
        h = next;
        if (y) {
          const int64_t at = g.batch_first ? ((b * g.seq + t) * g.directions + d) * H : ((t * g.directions + d) * g.batch + b) * H;
          for (int64_t j = 0; j < H; ++j) y->data<float>()[at + j] = static_cast<float>(h[j]);
        }
      }
      for (int64_t j = 0; j < H; ++j) {
        if (y_h) y_h->data<float>()[state_at(d, b) + j] = static_cast<float>(h[j]);
        if (y_c) y_c->data<float>()[state_at(d, b) + j] = static_cast<float>(c[j]);
      }
    }
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(RNN, mote::reference::recurrent);
MOTE_REF_KERNEL(GRU, mote::reference::recurrent);
MOTE_REF_KERNEL(LSTM, mote::reference::recurrent);
