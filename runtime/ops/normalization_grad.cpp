// Gradients of the normalisation layers. LayerNormalization and
// BatchNormalization in training mode normalise with statistics of X itself,
// so X's gradient goes through the mean and variance too:
//   xhat = (x - mean) * inv,  inv = 1 / sqrt(var + epsilon)   (over `axes`)
//   g    = dY * scale
//   dX   = inv * (g - mean(g) - xhat * mean(g * xhat))          (over `axes`)
//   dScale = sum(dY * xhat), dB = sum(dY)                       (over the rest)
// The statistics are recomputed from X here rather than read from the
// forward op's optional outputs, so the builder does not depend on which
// outputs a model kept. BatchNormalization in inference mode is affine in X.
#include <string>

#include "runtime/core/shape_util.hpp"
#include "runtime/train/grad_builder.hpp"

namespace mote {
namespace {

int reduce_mean(TrainGraph& g, int x, const std::vector<int64_t>& axes) {
  fb::ReduceAttrsT a;
  a.keepdims = true;
  return g.op1(fb::OpType::ReduceMean, {x, g.i64s(axes)}, a);
}

// Whether `t` is known to be all zeros: a folded value, or (too large to
// fold) an Expand of a zero scalar, which is how autodiff fills the gradient
// of an output the loss does not read.
bool known_zero(const TrainGraph& g, int t) {
  auto all_zero = [](const Tensor* value) {
    if (!value) return false;
    for (double v : value->to_doubles()) {
      if (v != 0.0) return false;
    }
    return true;
  };
  if (all_zero(g.value(t))) return true;
  for (auto it = g.ops().rbegin(); it != g.ops().rend(); ++it) {
    const fb::OpT& op = **it;
    if (op.outputs.empty() || op.outputs[0] != t) continue;
    return op.type == fb::OpType::Expand && all_zero(g.value(op.inputs[0]));
  }
  return false;
}

// Only Y's gradient is propagated: the statistics outputs (LayerNorm's Mean
// and InvStdDev, BatchNorm's running_mean and running_var) must not reach
// the loss.
Status require_unused_outputs(GradContext& c, const char* names) {
  for (size_t i = 1; i < c.grad_outputs.size(); ++i) {
    if (c.grad_outputs[i] >= 0 && !known_zero(c.g, c.grad_outputs[i])) {
      return c.fail(std::string("gradients through the outputs ") + names + " are not supported; only Y's");
    }
  }
  return {};
}

// x's normalised values and 1 / sqrt(var + epsilon), kept for the formulas.
struct Normalized {
  int xhat = -1;
  int inv = -1;
};

Normalized normalize(TrainGraph& g, int x, const std::vector<int64_t>& axes, float epsilon) {
  const int centred = g.sub(x, reduce_mean(g, x, axes));
  const int var = reduce_mean(g, g.mul(centred, centred), axes);
  Normalized n;
  n.inv = g.div(g.scalar(1.0f), g.op1(fb::OpType::Sqrt, {g.add(var, g.scalar(epsilon))}));
  n.xhat = g.mul(centred, n.inv);
  return n;
}

// dX of x -> xhat * scale with the statistics taken over `axes` of x.
int batch_stat_input_grad(TrainGraph& g, const Normalized& n, int dy, int scale, const std::vector<int64_t>& axes) {
  const int gy = g.mul(dy, scale);
  const int centred = g.sub(gy, reduce_mean(g, gy, axes));
  return g.mul(n.inv, g.sub(centred, g.mul(n.xhat, reduce_mean(g, g.mul(gy, n.xhat), axes))));
}

Status layer_norm_grad(GradContext& c) {
  TrainGraph& g = c.g;
  MOTE_RETURN_IF_ERROR(require_unused_outputs(c, "Mean and InvStdDev"));
  const auto& a = attrs<fb::NormAttrsT>(c.op);
  const int rank = g.rank(c.in(0));
  auto axis = normalize_axis(a.axis, rank);
  if (!axis.ok()) return c.fail("attribute axis: " + axis.status().message());
  std::vector<int64_t> axes;
  for (int64_t i = *axis; i < rank; ++i) axes.push_back(i);
  const Normalized n = normalize(g, c.in(0), axes, a.epsilon);
  if (c.wants(0)) c.set(0, batch_stat_input_grad(g, n, c.dy(), c.in(1), axes));
  if (c.wants(1)) c.set(1, g.sum_to(g.mul(c.dy(), n.xhat), g.shape(c.in(1))));
  if (c.wants(2)) c.set(2, g.sum_to(c.dy(), g.shape(c.in(2))));
  return {};
}

// BatchNormalization: per-channel vectors [C] act on X [N, C, ...] reshaped
// to [C, 1, ...]; statistics are over N and the spatial axes.
Status batch_norm_grad(GradContext& c) {
  TrainGraph& g = c.g;
  MOTE_RETURN_IF_ERROR(require_unused_outputs(c, "running_mean and running_var"));
  const auto& a = attrs<fb::NormAttrsT>(c.op);
  const Shape x = g.shape(c.in(0));
  Shape channel_shape(x.size() - 1, 1);
  channel_shape[0] = x[1];
  std::vector<int64_t> axes = {0};
  for (size_t i = 2; i < x.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  const int64_t channels = x[1];
  auto per_channel = [&](int t) { return g.reshape(t, channel_shape); };
  auto channel_sum = [&](int t) { return g.reduce_sum(t, axes, /*keepdims=*/false); };
  const int scale = per_channel(c.in(1));

  if (a.training_mode) {
    const Normalized n = normalize(g, c.in(0), axes, a.epsilon);
    if (c.wants(0)) c.set(0, batch_stat_input_grad(g, n, c.dy(), scale, axes));
    if (c.wants(1)) c.set(1, channel_sum(g.mul(c.dy(), n.xhat)));
    if (c.wants(2)) c.set(2, channel_sum(c.dy()));
    // Y does not read input_mean and input_var in training mode.
    for (size_t i = 3; i < 5; ++i) {
      if (c.wants(i)) c.set(i, g.expand(g.scalar(0.0f), {channels}));
    }
    return {};
  }
  // Inference mode: y = (x - mean) * inv * scale + B with the given mean/var.
  const int var_eps = g.add(per_channel(c.in(4)), g.scalar(a.epsilon));
  const int inv = g.div(g.scalar(1.0f), g.op1(fb::OpType::Sqrt, {var_eps}));
  const int centred = g.sub(c.in(0), per_channel(c.in(3)));
  const int dy_scaled = g.mul(c.dy(), g.mul(scale, inv));
  if (c.wants(0)) c.set(0, dy_scaled);
  if (c.wants(1)) c.set(1, channel_sum(g.mul(c.dy(), g.mul(centred, inv))));
  if (c.wants(2)) c.set(2, channel_sum(c.dy()));
  if (c.wants(3)) c.set(3, g.neg(channel_sum(dy_scaled)));
  // d/dvar of (var + eps)^-1/2 is -0.5 (var + eps)^-3/2 = -0.5 inv / (var + eps).
  if (c.wants(4)) c.set(4, channel_sum(g.mul(g.mul(dy_scaled, centred), g.scale(g.div(g.scalar(1.0f), var_eps), -0.5f))));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_GRAD(LayerNormalization, mote::layer_norm_grad);
MOTE_GRAD(BatchNormalization, mote::batch_norm_grad);
