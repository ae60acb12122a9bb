// Backward ops of training graphs, for gradients that compositions of
// existing ops cannot express (or only at a large cost):
//   ConvGradWeight(X, dY) -> dW: a Conv's weight gradient. Its ConvAttrs are
//     the forward Conv's, with kernel_shape given explicitly, since W itself
//     is not an input.
//   MaxPoolGrad(X, dY) -> dX: routes each output's gradient to the tap its
//     MaxPool (same PoolAttrs) picked.
//   AveragePoolGrad(X, dY) -> dX: spreads each output's gradient over its
//     window, divided as AveragePool divides. X is read for its shape only.
// dY always has the forward op's output shape, which is checked here.
#include <string>

#include "runtime/core/op_def.hpp"
#include "runtime/ops/conv_geometry.hpp"
#include "runtime/ops/pool.hpp"

namespace mote {

namespace {

// f32, or f64 for the gradient checks (the reference kernels run both); X
// and dY share it.
Status require_float(ShapeContext& ctx) {
  if (ctx.dtype(0) != DType::F32 && ctx.dtype(0) != DType::F64) {
    return ctx.fail(std::string("input 0 has dtype ") + dtype_name(ctx.dtype(0)) + "; expected f32 or f64");
  }
  if (ctx.dtype(1) != ctx.dtype(0)) {
    return ctx.fail(std::string("input 1 has dtype ") + dtype_name(ctx.dtype(1)) + " but input 0 has " +
                    dtype_name(ctx.dtype(0)));
  }
  return {};
}

Status conv_grad_weight_shape(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_float(ctx));
  const auto& a = attrs<fb::ConvAttrsT>(ctx.op);
  const Shape& x = ctx.shape(0);
  const Shape& dy = ctx.shape(1);
  if (x.size() < 3 || dy.size() != x.size()) {
    return ctx.fail("X " + shape_to_string(x) + " and dY " + shape_to_string(dy) + " must have the same rank >= 3");
  }
  if (a.kernel_shape.size() != x.size() - 2) return ctx.fail("attribute kernel_shape must list every spatial dim");
  if (a.group < 1 || x[1] % a.group != 0) return ctx.fail("group " + std::to_string(a.group) + " must divide the channels of X");
  Shape w = {dy[1], x[1] / a.group};
  w.insert(w.end(), a.kernel_shape.begin(), a.kernel_shape.end());
  auto geometry = resolve_conv(a, x, w);
  if (!geometry.ok()) return ctx.fail(geometry.status().message());
  if (geometry->output_shape() != dy) {
    return ctx.fail("dY has shape " + shape_to_string(dy) + ", the Conv output " +
                    shape_to_string(geometry->output_shape()));
  }
  ctx.set_output(0, ctx.dtype(0), w);
  return {};
}

Status pool_grad_shape(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_float(ctx));
  const Shape& x = ctx.shape(0);
  auto geometry = pool_geometry(attrs<fb::PoolAttrsT>(ctx.op), x);
  if (!geometry.ok()) return ctx.fail(geometry.status().message());
  Shape expected = {x[0], x[1]};
  expected.insert(expected.end(), geometry->out.begin(), geometry->out.end());
  if (ctx.shape(1) != expected) {
    return ctx.fail("dY has shape " + shape_to_string(ctx.shape(1)) + ", the pool output " + shape_to_string(expected));
  }
  ctx.set_output(0, ctx.dtype(0), x);
  return {};
}

}  // namespace

}  // namespace mote

MOTE_OP_DEF(ConvGradWeight, {.min_inputs = 2, .max_inputs = 2, .infer = mote::conv_grad_weight_shape});
MOTE_OP_DEF(MaxPoolGrad, {.min_inputs = 2, .max_inputs = 2, .infer = mote::pool_grad_shape});
MOTE_OP_DEF(AveragePoolGrad, {.min_inputs = 2, .max_inputs = 2, .infer = mote::pool_grad_shape});
