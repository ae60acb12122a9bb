// Gradients of Softmax and LogSoftmax over their one axis.
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/softmax.hpp"
#include "runtime/train/grad_builder.hpp"

namespace mote {
namespace {

Result<int64_t> axis_of(GradContext& c) {
  auto axis = normalize_axis(softmax_axis_attr(c.op), c.g.rank(c.in(0)));
  if (!axis.ok()) return c.fail("attribute axis: " + axis.status().message());
  return int64_t{*axis};
}

// dx = y * (dy - sum(dy * y, axis))
Status softmax_grad(GradContext& c) {
  MOTE_ASSIGN_OR_RETURN(int64_t axis, axis_of(c));
  TrainGraph& g = c.g;
  int y = c.out(0);
  int dot = g.reduce_sum(g.mul(c.dy(), y), {axis}, /*keepdims=*/true);
  c.set(0, g.mul(y, g.sub(c.dy(), dot)));
  return {};
}

// y = x - logsumexp(x): dx = dy - exp(y) * sum(dy, axis)
Status log_softmax_grad(GradContext& c) {
  MOTE_ASSIGN_OR_RETURN(int64_t axis, axis_of(c));
  TrainGraph& g = c.g;
  int total = g.reduce_sum(c.dy(), {axis}, /*keepdims=*/true);
  int probs = g.op1(fb::OpType::Exp, {c.out(0)});
  c.set(0, g.sub(c.dy(), g.mul(probs, total)));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_GRAD(Softmax, mote::softmax_grad);
MOTE_GRAD(LogSoftmax, mote::log_softmax_grad);
