#include "runtime/train/optimizers.hpp"

namespace mote {

std::vector<std::string> optimizer_state_names(const OptimizerOptions& options) {
  if (options.kind == OptimizerKind::kAdamW) return {"adam_m", "adam_v"};
  if (options.momentum != 0.0f) return {"momentum"};
  return {};
}

namespace {

// PyTorch's SGD: d = g + wd * p; buf = momentum * buf + d; p -= lr * buf.
int sgd(TrainGraph& g, const OptimizerOptions& o, const OptimizerInputs& in, int p, int grad,
        const std::vector<int>& states, std::vector<int>& new_states) {
  int d = o.weight_decay != 0.0f ? g.add(grad, g.scale(p, o.weight_decay)) : grad;
  if (o.momentum != 0.0f) {
    d = g.add(g.scale(states[0], o.momentum), d);
    new_states.push_back(d);
  }
  return g.sub(p, g.mul(in.learning_rate, d));
}

// AdamW (decoupled weight decay): p *= 1 - lr * wd; m = b1 m + (1 - b1) g;
// v = b2 v + (1 - b2) g^2; p -= lr * (m * bc1) / (sqrt(v * bc2) + eps).
int adamw(TrainGraph& g, const OptimizerOptions& o, const OptimizerInputs& in, int p, int grad,
          const std::vector<int>& states, std::vector<int>& new_states) {
  int decayed = p;
  if (o.weight_decay != 0.0f) {
    int keep = g.sub(g.scalar(1.0f), g.scale(in.learning_rate, o.weight_decay));
    decayed = g.mul(p, keep);
  }
  int m = g.add(g.scale(states[0], o.beta1), g.scale(grad, 1.0f - o.beta1));
  int v = g.add(g.scale(states[1], o.beta2), g.scale(g.mul(grad, grad), 1.0f - o.beta2));
  new_states.push_back(m);
  new_states.push_back(v);
  int m_hat = g.mul(m, in.bias_correction1);
  int v_hat = g.mul(v, in.bias_correction2);
  int denom = g.add(g.op1(fb::OpType::Sqrt, {v_hat}), g.scalar(o.epsilon));
  return g.sub(decayed, g.mul(in.learning_rate, g.div(m_hat, denom)));
}

}  // namespace

int build_update(TrainGraph& g, const OptimizerOptions& options, const OptimizerInputs& in, int param, int grad,
                 const std::vector<int>& states, std::vector<int>& new_states) {
  if (options.kind == OptimizerKind::kAdamW) return adamw(g, options, in, param, grad, states, new_states);
  return sgd(g, options, in, param, grad, states, new_states);
}

}  // namespace mote
