// Unary elementwise ops: one input, one output of the same dtype and shape.
// The shape functions only have dtypes to check (and Clip's bounds).
#include "runtime/ops/unary.hpp"

#include <initializer_list>
#include <string>

#include "runtime/ops/shape_fns.hpp"

namespace mote {

ActivationParams activation_params(const fb::OpT& op) {
  ActivationParams p;
  switch (op.type) {
    case fb::OpType::LeakyRelu: p.alpha = 0.01f; break;
    case fb::OpType::Elu: p.alpha = 1.0f; break;
    case fb::OpType::Selu:
      p.alpha = 1.67326319217681884765625f;
      p.gamma = 1.05070102214813232421875f;
      break;
    case fb::OpType::HardSigmoid:
      p.alpha = 0.2f;
      p.beta = 0.5f;
      break;
    case fb::OpType::HardSwish:
      p.alpha = 1.0f / 6.0f;
      p.beta = 0.5f;
      return p;  // ONNX gives HardSwish no attributes to override
    default: break;
  }
  if (has_attrs<fb::ActivationAttrsT>(op)) {
    const auto& a = attrs<fb::ActivationAttrsT>(op);
    p.alpha = a.alpha;
    p.beta = a.beta;
    p.gamma = a.gamma;
    p.approximate_tanh = a.approximate_tanh;
  }
  return p;
}

namespace {

std::string dtype_list(std::initializer_list<DType> dtypes) {
  std::string s;
  for (DType d : dtypes) s += (s.empty() ? "" : ", ") + std::string(dtype_name(d));
  return s;
}

Status require_input_dtype(const ShapeContext& ctx, std::initializer_list<DType> allowed) {
  for (DType d : allowed) {
    if (ctx.dtype(0) == d) return {};
  }
  return ctx.fail(std::string("input 0 has dtype ") + dtype_name(ctx.dtype(0)) + "; supported: " +
                  dtype_list(allowed));
}

// Math and activations defined on real numbers only. f64 runs on the
// reference backend only (ExecutionPlan refuses it elsewhere).
Status float_unary(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_input_dtype(ctx, {DType::F32, DType::F64}));
  return shape_fns::same_as_input0(ctx);
}

// Abs, Neg, Sign (and Clip): meaningful for signed integers too.
Status signed_unary(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_input_dtype(ctx, {DType::F32, DType::F64, DType::I32, DType::I64}));
  return shape_fns::same_as_input0(ctx);
}

Status integer_unary(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_input_dtype(ctx, {DType::I8, DType::U8, DType::I32, DType::I64}));
  return shape_fns::same_as_input0(ctx);
}

Status bool_unary(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_input_dtype(ctx, {DType::Bool}));
  return shape_fns::same_as_input0(ctx);
}

// Clip(input, min?, max?): the bounds are optional one-element tensors of the
// input's dtype (ONNX says scalars; a one-element [1] is accepted too, as
// older exporters write them).
Status clip_shape(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_input_dtype(ctx, {DType::F32, DType::F64, DType::I32, DType::I64, DType::I8, DType::U8}));
  MOTE_RETURN_IF_ERROR(shape_fns::same_as_input0(ctx));
  const char* names[] = {"input", "min", "max"};
  for (size_t i = 1; i < 3; ++i) {
    if (!ctx.has_input(i)) continue;
    if (ctx.dtype(i) != ctx.dtype(0)) {
      return ctx.fail(std::string(names[i]) + " has dtype " + dtype_name(ctx.dtype(i)) + " but input has " +
                      dtype_name(ctx.dtype(0)));
    }
    int64_t numel = shape_numel(ctx.shape(i));
    if (numel >= 0 && numel != 1) {
      return ctx.fail(std::string(names[i]) + " must hold one value, has shape " + shape_to_string(ctx.shape(i)));
    }
  }
  return {};
}

}  // namespace
}  // namespace mote

// The registrations expand inside namespace mote, so the helpers above are
// found unqualified.
MOTE_OP_DEF(Sqrt, {.infer = float_unary});
MOTE_OP_DEF(Exp, {.infer = float_unary});
MOTE_OP_DEF(Log, {.infer = float_unary});
MOTE_OP_DEF(Abs, {.infer = signed_unary});
MOTE_OP_DEF(Neg, {.infer = signed_unary});
MOTE_OP_DEF(Reciprocal, {.infer = float_unary});
MOTE_OP_DEF(Relu, {.infer = float_unary});
MOTE_OP_DEF(LeakyRelu, {.infer = float_unary});
MOTE_OP_DEF(Sigmoid, {.infer = float_unary});
MOTE_OP_DEF(Tanh, {.infer = float_unary});
MOTE_OP_DEF(HardSigmoid, {.infer = float_unary});
MOTE_OP_DEF(HardSwish, {.infer = float_unary});
MOTE_OP_DEF(Elu, {.infer = float_unary});
MOTE_OP_DEF(Selu, {.infer = float_unary});
MOTE_OP_DEF(Gelu, {.infer = float_unary});
MOTE_OP_DEF(Erf, {.infer = float_unary});
MOTE_OP_DEF(Softplus, {.infer = float_unary});
MOTE_OP_DEF(Sin, {.infer = float_unary});
MOTE_OP_DEF(Cos, {.infer = float_unary});
MOTE_OP_DEF(Floor, {.infer = float_unary});
MOTE_OP_DEF(Ceil, {.infer = float_unary});
MOTE_OP_DEF(Round, {.infer = float_unary});
MOTE_OP_DEF(Sign, {.infer = signed_unary});
MOTE_OP_DEF(Clip, {.min_inputs = 1, .max_inputs = 3, .infer = clip_shape});
MOTE_OP_DEF(Not, {.infer = bool_unary});
MOTE_OP_DEF(BitwiseNot, {.infer = integer_unary});
MOTE_OP_DEF(Tan, {.infer = float_unary});
MOTE_OP_DEF(Asin, {.infer = float_unary});
MOTE_OP_DEF(Acos, {.infer = float_unary});
MOTE_OP_DEF(Atan, {.infer = float_unary});
MOTE_OP_DEF(Sinh, {.infer = float_unary});
MOTE_OP_DEF(Cosh, {.infer = float_unary});
MOTE_OP_DEF(Asinh, {.infer = float_unary});
MOTE_OP_DEF(Acosh, {.infer = float_unary});
MOTE_OP_DEF(Atanh, {.infer = float_unary});
MOTE_OP_DEF(Softsign, {.infer = float_unary});
