// Pooling gradients. MaxPool and AveragePool scatter through their own
// backward ops (runtime/ops/gradients.cpp) with the forward op's PoolAttrs;
// GlobalAveragePool spreads dY evenly with ordinary ops.
#include "runtime/train/grad_builder.hpp"

namespace mote {
namespace {

Status max_pool_grad(GradContext& c) {
  c.set(0, c.g.op(fb::OpType::MaxPoolGrad, {c.in(0), c.dy(0)}, 1, &c.op)[0]);
  return {};
}

Status average_pool_grad(GradContext& c) {
  c.set(0, c.g.op(fb::OpType::AveragePoolGrad, {c.in(0), c.dy()}, 1, &c.op)[0]);
  return {};
}

Status global_average_pool_grad(GradContext& c) {
  const Shape x = c.g.shape(c.in(0));
  int64_t pixels = 1;
  for (size_t i = 2; i < x.size(); ++i) pixels *= x[i];
  c.set(0, c.g.expand(c.g.scale(c.dy(), 1.0 / static_cast<double>(pixels)), x));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_GRAD(MaxPool, mote::max_pool_grad);
MOTE_GRAD(AveragePool, mote::average_pool_grad);
MOTE_GRAD(GlobalAveragePool, mote::global_average_pool_grad);
