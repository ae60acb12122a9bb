#include "runtime/ops/shape_fns.hpp"

#include "runtime/core/shape_util.hpp"

namespace mote::shape_fns {

Status same_as_input0(ShapeContext& ctx) {
  ctx.set_output(0, ctx.dtype(0), ctx.shape(0));
  return {};
}

Status broadcast_inputs(ShapeContext& ctx) {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (ctx.has_input(i)) shapes.push_back(ctx.shape(i));
  }
  auto out = broadcast_shapes(shapes);
  if (!out.ok()) return ctx.fail(out.status().message());
  ctx.set_output(0, ctx.dtype(0), *out);
  return {};
}

Status broadcast_to_bool(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(broadcast_inputs(ctx));
  ctx.outputs[0].dtype = DType::Bool;
  return {};
}

}  // namespace mote::shape_fns
