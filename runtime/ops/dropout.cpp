// Dropout(X, step?) -> Y, with DropoutAttrs (ratio, seed, training_mode).
// Inference: Y = X. Training: Y = X * keep / (1 - ratio), keep drawn per
// element from (seed, step, index) by runtime/ops/dropout.hpp; the step input
// (an integer scalar, the TrainingSession's step counter) is required then.
// The gradient is the same op on dY (runtime/ops/dropout_grad.cpp).
#include "runtime/ops/dropout.hpp"

#include <cmath>
#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/op_def.hpp"

namespace mote {

Status check_dropout_ratio(float ratio) {
  if (!(ratio >= 0.0f && ratio < 1.0f)) {
    return invalid_model("attribute ratio must be in [0, 1), got " + std::to_string(ratio));
  }
  return {};
}

Result<DropoutMask> dropout_mask(const fb::DropoutAttrsT& attrs, const Tensor& step) {
  MOTE_RETURN_IF_ERROR(check_dropout_ratio(attrs.ratio));
  if ((step.dtype() != DType::I64 && step.dtype() != DType::I32) || step.numel() != 1) {
    return invalid_argument(std::string("input 'step' must be an integer scalar, got ") + dtype_name(step.dtype()) +
                            " " + shape_to_string(step.shape()));
  }
  return DropoutMask(attrs.seed, step.to_int64s()[0], attrs.ratio);
}

namespace {

Status infer_dropout(ShapeContext& ctx) {
  const auto& a = attrs<fb::DropoutAttrsT>(ctx.op);
  if (Status s = check_dropout_ratio(a.ratio); !s.ok()) return ctx.fail(s.message());
  // f64 for the reference backend's gradient checks (plan_op keeps it there).
  if (ctx.dtype(0) != DType::F32 && ctx.dtype(0) != DType::F64) {
    return ctx.fail(std::string("input 'X' must be f32 or f64, got ") + dtype_name(ctx.dtype(0)));
  }
  if (a.training_mode) {
    if (!ctx.has_input(1)) return ctx.fail("input 'step' is required with training_mode = 1");
    if ((ctx.dtype(1) != DType::I64 && ctx.dtype(1) != DType::I32) || ctx.rank(1) != 0) {
      return ctx.fail(std::string("input 'step' must be an i64 or i32 scalar, got ") + dtype_name(ctx.dtype(1)) + " " +
                      shape_to_string(ctx.shape(1)));
    }
    // The mask hashes 32-bit element indices.
    if (shape_numel(ctx.shape(0)) > (int64_t{1} << 32)) return ctx.fail("input 'X' has more than 2^32 elements");
  }
  ctx.set_output(0, ctx.dtype(0), ctx.shape(0));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Dropout, {.min_inputs = 1, .max_inputs = 2, .infer = mote::infer_dropout});
