// The storage types the reference float kernels run on: f32, what models
// hold, and f64, which gradient checks run in (tests/train/grad_check.hpp) so
// that finite differences are limited by truncation, not by rounding. Kernels
// are templates on the storage type and compute in double either way.
#pragma once

#include <string>

#include "runtime/core/kernel.hpp"

namespace mote::reference {

// Calls visit(T{}) with float for f32 and double for f64; false otherwise.
template <class Visit>
bool visit_float_type(DType dtype, Visit visit) {
  switch (dtype) {
    case DType::F32: visit(float{}); return true;
    case DType::F64: visit(double{}); return true;
    default: return false;
  }
}

// The error of a float kernel given any other dtype.
inline Status unsupported_float_dtype(const KernelContext& ctx, DType dtype) {
  return ctx.fail(std::string("unsupported dtype ") + dtype_name(dtype) + " (only f32 and f64)");
}

// Every present input has dtype `dtype`, or the error naming the first that
// does not.
inline Status require_inputs_dtype(const KernelContext& ctx, DType dtype) {
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (ctx.has_input(i) && ctx.in(i).dtype() != dtype) {
      return ctx.fail("input " + std::to_string(i) + " has dtype " + dtype_name(ctx.in(i).dtype()) +
                      " but input 0 has " + dtype_name(dtype));
    }
  }
  return {};
}

// Runs run(T{}) for the storage type of input 0 once every present input is
// checked to share it: the entry point of the multi-input float kernels.
template <class Run>
Status run_float_kernel(KernelContext& ctx, Run run) {
  const DType dtype = ctx.in(0).dtype();
  MOTE_RETURN_IF_ERROR(require_inputs_dtype(ctx, dtype));
  Status status = unsupported_float_dtype(ctx, dtype);
  visit_float_type(dtype, [&](auto type) { status = run(type); });
  return status;
}

}  // namespace mote::reference
