// MatMul's gradients (numpy semantics, batch dimensions broadcast):
//   dA = dY B^T, dB = A^T dY over the last two axes, then summed back over
// any batch axes the operand was broadcast along.
#include "runtime/train/grad_builder.hpp"

namespace mote {
namespace {

Status matmul_grad(GradContext& c) {
  TrainGraph& g = c.g;
  if (g.rank(c.in(0)) < 2 || g.rank(c.in(1)) < 2) {
    // 1-D operands drop an axis from the product; not needed by the models trained so far.
    return c.fail("1-D operands are not supported yet (shapes " + shape_to_string(g.shape(c.in(0))) + " and " +
                  shape_to_string(g.shape(c.in(1))) + ")");
  }
  const int dy = c.dy();
  if (c.wants(0)) {
    int da = g.op1(fb::OpType::MatMul, {dy, g.transpose_last2(c.in(1))});
    c.set(0, g.sum_to(da, g.shape(c.in(0))));
  }
  if (c.wants(1)) {
    int db = g.op1(fb::OpType::MatMul, {g.transpose_last2(c.in(0)), dy});
    c.set(1, g.sum_to(db, g.shape(c.in(1))));
  }
  return {};
}

}  // namespace
}  // namespace mote

MOTE_GRAD(MatMul, mote::matmul_grad);
