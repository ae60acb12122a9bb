// Binary elementwise ops (and the variadic Min/Max, and Where) with ONNX
// multidirectional broadcasting. The shape functions check dtypes: ONNX gives
// both operands of arithmetic and comparisons one type T (Pow alone lets the
// exponent's type differ).
#include <limits>
#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/shape_fns.hpp"

namespace mote {
namespace {

// f64 runs on the reference backend only (ExecutionPlan refuses it elsewhere).
bool is_number(DType d) {
  return d == DType::F32 || d == DType::F64 || d == DType::I32 || d == DType::I64 || d == DType::I8 ||
         d == DType::U8;
}

bool is_wide_number(DType d) { return d == DType::F32 || d == DType::F64 || d == DType::I32 || d == DType::I64; }

// Every present input has input 0's dtype.
Status require_same_dtypes(const ShapeContext& ctx) {
  for (size_t i = 1; i < ctx.inputs.size(); ++i) {
    if (ctx.has_input(i) && ctx.dtype(i) != ctx.dtype(0)) {
      return ctx.fail("input " + std::to_string(i) + " has dtype " + dtype_name(ctx.dtype(i)) + " but input 0 has " +
                      dtype_name(ctx.dtype(0)) + "; they must match");
    }
  }
  return {};
}

Status require_number(const ShapeContext& ctx, size_t i) {
  if (is_number(ctx.dtype(i))) return {};
  return ctx.fail("input " + std::to_string(i) + " has dtype " + dtype_name(ctx.dtype(i)) +
                  "; supported: f32, f64, i32, i64, i8, u8");
}

// Add, Sub, Mul, Div, Min, Max.
Status arithmetic(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_number(ctx, 0));
  MOTE_RETURN_IF_ERROR(require_same_dtypes(ctx));
  return shape_fns::broadcast_inputs(ctx);
}

// Pow(X, Y): T and T1 are each f32, f64, i32 or i64; the result has X's dtype.
Status pow_shape(ShapeContext& ctx) {
  for (size_t i = 0; i < 2; ++i) {
    if (!is_wide_number(ctx.dtype(i))) {
      return ctx.fail("input " + std::to_string(i) + " has dtype " + dtype_name(ctx.dtype(i)) +
                      "; supported: f32, f64, i32, i64");
    }
  }
  return shape_fns::broadcast_inputs(ctx);
}

// Mod: floats need fmod (ONNX leaves the divisor-sign form to integers).
Status mod_shape(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(arithmetic(ctx));
  const bool is_float = ctx.dtype(0) == DType::F32 || ctx.dtype(0) == DType::F64;
  if (is_float && !attrs<fb::ModAttrsT>(ctx.op).fmod) {
    return ctx.fail("float operands need fmod=1 (ONNX defines the divisor-sign Mod for integers only)");
  }
  return {};
}

// PRelu(X, slope): slope broadcasts to X one way only; Y has X's shape.
Status prelu_shape(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(arithmetic(ctx));
  if (ctx.outputs[0].shape != ctx.shape(0)) {
    return ctx.fail("slope of shape " + shape_to_string(ctx.shape(1)) + " does not broadcast to X of shape " +
                    shape_to_string(ctx.shape(0)));
  }
  return {};
}

Status compare(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_number(ctx, 0));
  MOTE_RETURN_IF_ERROR(require_same_dtypes(ctx));
  return shape_fns::broadcast_to_bool(ctx);
}

// Equal also compares bools.
Status equal_shape(ShapeContext& ctx) {
  if (ctx.dtype(0) != DType::Bool) return compare(ctx);
  MOTE_RETURN_IF_ERROR(require_same_dtypes(ctx));
  return shape_fns::broadcast_to_bool(ctx);
}

// And, Or.
Status logical(ShapeContext& ctx) {
  if (ctx.dtype(0) != DType::Bool) {
    return ctx.fail(std::string("input 0 has dtype ") + dtype_name(ctx.dtype(0)) + "; expected bool");
  }
  MOTE_RETURN_IF_ERROR(require_same_dtypes(ctx));
  return shape_fns::broadcast_inputs(ctx);
}

// BitwiseAnd, BitwiseOr, BitwiseXor: integers of one dtype.
Status bitwise(ShapeContext& ctx) {
  const DType d = ctx.dtype(0);
  if (d != DType::I8 && d != DType::U8 && d != DType::I32 && d != DType::I64) {
    return ctx.fail(std::string("input 0 has dtype ") + dtype_name(d) + "; supported: i8, u8, i32, i64");
  }
  MOTE_RETURN_IF_ERROR(require_same_dtypes(ctx));
  return shape_fns::broadcast_inputs(ctx);
}

// BitShift: unsigned integers only (Mote's one is u8).
Status bit_shift(ShapeContext& ctx) {
  if (ctx.dtype(0) != DType::U8) {
    return ctx.fail(std::string("input 0 has dtype ") + dtype_name(ctx.dtype(0)) + "; supported: u8");
  }
  MOTE_RETURN_IF_ERROR(require_same_dtypes(ctx));
  return shape_fns::broadcast_inputs(ctx);
}

// Where(condition, X, Y): a bool condition picks from X or Y, of any one
// dtype; all three broadcast together.
Status where_shape(ShapeContext& ctx) {
  if (ctx.dtype(0) != DType::Bool) {
    return ctx.fail(std::string("condition has dtype ") + dtype_name(ctx.dtype(0)) + "; expected bool");
  }
  if (ctx.dtype(1) != ctx.dtype(2)) {
    return ctx.fail(std::string("X has dtype ") + dtype_name(ctx.dtype(1)) + " but Y has " + dtype_name(ctx.dtype(2)) +
                    "; they must match");
  }
  auto out = broadcast_shapes({ctx.shape(0), ctx.shape(1), ctx.shape(2)});
  if (!out.ok()) return ctx.fail(out.status().message());
  ctx.set_output(0, ctx.dtype(1), *out);
  return {};
}

}  // namespace
}  // namespace mote

// The registrations expand inside namespace mote, so the helpers above are
// found unqualified.
MOTE_OP_DEF(Add, {.min_inputs = 2, .max_inputs = 2, .infer = arithmetic});
MOTE_OP_DEF(Sub, {.min_inputs = 2, .max_inputs = 2, .infer = arithmetic});
MOTE_OP_DEF(Mul, {.min_inputs = 2, .max_inputs = 2, .infer = arithmetic});
MOTE_OP_DEF(Div, {.min_inputs = 2, .max_inputs = 2, .infer = arithmetic});
MOTE_OP_DEF(Pow, {.min_inputs = 2, .max_inputs = 2, .infer = pow_shape});
MOTE_OP_DEF(Min, {.min_inputs = 1, .max_inputs = kUnboundedInputs, .infer = arithmetic});
MOTE_OP_DEF(Max, {.min_inputs = 1, .max_inputs = kUnboundedInputs, .infer = arithmetic});
MOTE_OP_DEF(BitShift, {.min_inputs = 2, .max_inputs = 2, .infer = bit_shift});
MOTE_OP_DEF(Mod, {.min_inputs = 2, .max_inputs = 2, .infer = mod_shape});
MOTE_OP_DEF(PRelu, {.min_inputs = 2, .max_inputs = 2, .infer = prelu_shape});
MOTE_OP_DEF(And, {.min_inputs = 2, .max_inputs = 2, .infer = logical});
MOTE_OP_DEF(Or, {.min_inputs = 2, .max_inputs = 2, .infer = logical});
MOTE_OP_DEF(Xor, {.min_inputs = 2, .max_inputs = 2, .infer = logical});
MOTE_OP_DEF(BitwiseAnd, {.min_inputs = 2, .max_inputs = 2, .infer = bitwise});
MOTE_OP_DEF(BitwiseOr, {.min_inputs = 2, .max_inputs = 2, .infer = bitwise});
MOTE_OP_DEF(BitwiseXor, {.min_inputs = 2, .max_inputs = 2, .infer = bitwise});
MOTE_OP_DEF(Equal, {.min_inputs = 2, .max_inputs = 2, .infer = equal_shape});
MOTE_OP_DEF(Less, {.min_inputs = 2, .max_inputs = 2, .infer = compare});
MOTE_OP_DEF(Greater, {.min_inputs = 2, .max_inputs = 2, .infer = compare});
MOTE_OP_DEF(LessOrEqual, {.min_inputs = 2, .max_inputs = 2, .infer = compare});
MOTE_OP_DEF(GreaterOrEqual, {.min_inputs = 2, .max_inputs = 2, .infer = compare});
MOTE_OP_DEF(Where, {.min_inputs = 3, .max_inputs = 3, .infer = where_shape});
