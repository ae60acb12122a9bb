// Gradients of ReduceSum and ReduceMean: the output gradient, with the
// reduced axes restored as size 1, broadcast back over the input (divided by
// the number of elements averaged, for ReduceMean).
#include "runtime/ops/reduce.hpp"
#include "runtime/train/grad_builder.hpp"

namespace mote {
namespace {

Status reduce_grad(GradContext& c, bool mean) {
  TrainGraph& g = c.g;
  const Shape in_shape = g.shape(c.in(0));
  const Tensor* axes = c.in(1) >= 0 ? g.value(c.in(1)) : nullptr;
  if (c.in(1) >= 0 && !axes) return c.fail("input 'axes' must be known when the training graph is built");
  auto mask = reduce_axes_mask(attrs<fb::ReduceAttrsT>(c.op), axes, static_cast<int>(in_shape.size()));
  if (!mask.ok()) return c.fail(mask.status().message());
  int64_t count = 1;
  for (size_t i = 0; i < in_shape.size(); ++i) count *= (*mask)[i] ? in_shape[i] : 1;
  int kept = g.reshape(c.dy(), reduced_shape(in_shape, *mask, /*keepdims=*/true));
  int dx = g.expand(kept, in_shape);
  c.set(0, mean ? g.scale(dx, 1.0 / static_cast<double>(count)) : dx);
  return {};
}

Status reduce_sum_grad(GradContext& c) { return reduce_grad(c, false); }
Status reduce_mean_grad(GradContext& c) { return reduce_grad(c, true); }

}  // namespace
}  // namespace mote

MOTE_GRAD(ReduceSum, mote::reduce_sum_grad);
MOTE_GRAD(ReduceMean, mote::reduce_mean_grad);
