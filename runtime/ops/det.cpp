// Det(X [..., M, M]): the determinant of each square matrix, shape [...].
#include <string>

#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"

namespace mote {
namespace {

Status infer_det(ShapeContext& ctx) {
  const Shape& x = ctx.shape(0);
  if (ctx.dtype(0) != DType::F32 && ctx.dtype(0) != DType::F64) {
    return ctx.fail(std::string("X has dtype ") + dtype_name(ctx.dtype(0)) + "; supported: f32, f64");
  }
  if (x.size() < 2 || x[x.size() - 1] != x[x.size() - 2]) return ctx.fail("X " + shape_to_string(x) + " must end in square matrices");
  ctx.set_output(0, ctx.dtype(0), Shape(x.begin(), x.end() - 2));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Det, {.infer = mote::infer_det});
