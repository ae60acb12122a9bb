// NegativeLogLikelihoodLoss(input [N, C, d...], target [N, d...], weight? [C]):
// loss[n, d...] = -input[n, target[n, d...], d...] * weight[target], then
// reduced: none keeps target's shape, sum and mean give a scalar (mean
// divides by the summed weights of the targets not ignored). ONNX's
// SoftmaxCrossEntropyLoss converts to LogSoftmax followed by this op.
#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"

namespace mote {
namespace {

Status infer_nll_loss(ShapeContext& ctx) {
  if (ctx.dtype(0) != DType::F32 && ctx.dtype(0) != DType::F64) {
    return ctx.fail(std::string("input has dtype ") + dtype_name(ctx.dtype(0)) + "; supported: f32, f64");
  }
  if (ctx.dtype(1) != DType::I64 && ctx.dtype(1) != DType::I32) {
    return ctx.fail(std::string("target must be i64 or i32, not ") + dtype_name(ctx.dtype(1)));
  }
  const Shape& input = ctx.shape(0);
  const Shape& target = ctx.shape(1);
  Shape expected = input;
  if (input.size() >= 2) expected.erase(expected.begin() + 1);
  if (input.size() < 2 || target != expected) {
    return ctx.fail("input " + shape_to_string(input) + " must be [N, C, d...] and target " +
                    shape_to_string(target) + " [N, d...]");
  }
  if (ctx.has_input(2) && (ctx.shape(2) != Shape{input[1]} || ctx.dtype(2) != ctx.dtype(0))) {
    return ctx.fail("weight " + shape_to_string(ctx.shape(2)) + " must be one " + dtype_name(ctx.dtype(0)) +
                    " per class, [" + std::to_string(input[1]) + "]");
  }
  const bool keep = attrs<fb::LossAttrsT>(ctx.op).reduction == fb::LossReduction::None;
  ctx.set_output(0, ctx.dtype(0), keep ? target : Shape{});
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(NegativeLogLikelihoodLoss, {.min_inputs = 2, .max_inputs = 3, .infer = mote::infer_nll_loss});
