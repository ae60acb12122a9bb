// Dropout's gradient. Training mode multiplies X by a fixed mask / (1 - ratio),
// so dX is the same op on dY: same seed, same step input, hence the same mask
// recomputed rather than stored. Inference mode is the identity.
#include "runtime/train/grad_builder.hpp"

namespace mote {
namespace {

Status dropout_grad(GradContext& c) {
  if (!attrs<fb::DropoutAttrsT>(c.op).training_mode) {
    c.set(0, c.dy());
    return {};
  }
  c.set(0, c.g.op(fb::OpType::Dropout, {c.dy(), c.in(1)}, 1, &c.op)[0]);
  return {};
}

}  // namespace
}  // namespace mote

MOTE_GRAD(Dropout, mote::dropout_grad);
