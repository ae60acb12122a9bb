// Gradients of the broadcasting arithmetic ops. Each operand's gradient is
// computed at the output's shape and summed back to the operand's own shape
// (TrainGraph::sum_to), which undoes the broadcast.
#include "runtime/train/grad_builder.hpp"

namespace mote {
namespace {

Status add_grad(GradContext& c) {
  c.set(0, c.g.sum_to(c.dy(), c.g.shape(c.in(0))));
  c.set(1, c.g.sum_to(c.dy(), c.g.shape(c.in(1))));
  return {};
}

Status sub_grad(GradContext& c) {
  c.set(0, c.g.sum_to(c.dy(), c.g.shape(c.in(0))));
  if (c.wants(1)) c.set(1, c.g.neg(c.g.sum_to(c.dy(), c.g.shape(c.in(1)))));
  return {};
}

Status mul_grad(GradContext& c) {
  if (c.wants(0)) c.set(0, c.g.sum_to(c.g.mul(c.dy(), c.in(1)), c.g.shape(c.in(0))));
  if (c.wants(1)) c.set(1, c.g.sum_to(c.g.mul(c.dy(), c.in(0)), c.g.shape(c.in(1))));
  return {};
}

// y = a / b: da = dy / b; db = -dy * a / b^2 = -(dy * y) / b.
Status div_grad(GradContext& c) {
  if (c.wants(0)) c.set(0, c.g.sum_to(c.g.div(c.dy(), c.in(1)), c.g.shape(c.in(0))));
  if (c.wants(1)) {
    int db = c.g.neg(c.g.div(c.g.mul(c.dy(), c.out(0)), c.in(1)));
    c.set(1, c.g.sum_to(db, c.g.shape(c.in(1))));
  }
  return {};
}

}  // namespace
}  // namespace mote

MOTE_GRAD(Add, mote::add_grad);
MOTE_GRAD(Sub, mote::sub_grad);
MOTE_GRAD(Mul, mote::mul_grad);
MOTE_GRAD(Div, mote::div_grad);
