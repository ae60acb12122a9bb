// Concat's gradient cuts dY back into the inputs' pieces with Slice; Split's
// joins the outputs' gradients with Concat (the autodiff fills unused
// outputs' gradients with zeros).
#include "runtime/core/shape_util.hpp"
#include "runtime/train/grad_builder.hpp"

namespace mote {
namespace {

Result<int> axis_of(GradContext& c, int64_t attr, int rank) {
  auto axis = normalize_axis(attr, rank);
  if (!axis.ok()) return c.fail("attribute axis: " + axis.status().message());
  return *axis;
}

Status concat_grad(GradContext& c) {
  TrainGraph& g = c.g;
  MOTE_ASSIGN_OR_RETURN(int axis, axis_of(c, attrs<fb::AxisAttrsT>(c.op).axis, g.rank(c.dy())));
  int64_t offset = 0;
  for (size_t i = 0; i < c.op.inputs.size(); ++i) {
    const int64_t size = g.shape(c.in(i))[static_cast<size_t>(axis)];
    if (c.wants(i)) {
      c.set(i, g.op1(fb::OpType::Slice, {c.dy(), g.i64s({offset}), g.i64s({offset + size}), g.i64s({axis})}));
    }
    offset += size;
  }
  return {};
}

Status split_grad(GradContext& c) {
  TrainGraph& g = c.g;
  MOTE_ASSIGN_OR_RETURN(int axis, axis_of(c, attrs<fb::SplitAttrsT>(c.op).axis, g.rank(c.in(0))));
  fb::AxisAttrsT a;
  a.axis = axis;
  c.set(0, g.op1(fb::OpType::Concat, c.grad_outputs, a));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_GRAD(Concat, mote::concat_grad);
MOTE_GRAD(Split, mote::split_grad);
