#include "runtime/train/grad_builder.hpp"

#include "runtime/core/registry.hpp"

namespace mote {

Status GradContext::fail(const std::string& message) const {
  return invalid_argument(std::string(op_type_name(op.type)) + " '" + op.name + "': gradient: " + message);
}

Status reshape_like_input_grad(GradContext& ctx) {
  ctx.set(0, ctx.g.reshape(ctx.dy(), ctx.g.shape(ctx.in(0))));
  return {};
}

}  // namespace mote
