// Inputs whose values decide output shapes (Reshape's shape, Slice's starts,
// Pad's pads...): shape functions read them from known values, kernels read
// the same tensors at run time. Most hold integer lists.
#pragma once

#include <string>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/core/op_def.hpp"

namespace mote {

// The elements of `t`, which must be an i32 or i64 scalar or 1-D tensor.
// `what` names the tensor in errors, e.g. "'shape' (input 1)".
Result<std::vector<int64_t>> read_int_list(const Tensor& t, const std::string& what);

// The value of input `i`. Ops flag such inputs in OpDef::value_inputs and the
// session provides them before inference; the error covers a caller that
// could not. Errors name the op.
Result<const Tensor*> known_input_value(const ShapeContext& ctx, size_t i, const std::string& what);

// read_int_list of known input `i`; errors name the op.
Result<std::vector<int64_t>> known_int_list(const ShapeContext& ctx, size_t i, const std::string& what);

// The value of optional input `i`, or nullptr when it is omitted (or unknown).
inline const Tensor* optional_value(const ShapeContext& ctx, size_t i) {
  return ctx.has_input(i) ? ctx.inputs[i].value : nullptr;
}

// A kernel's optional input `i`, or nullptr when it is omitted.
inline const Tensor* optional_input(const KernelContext& ctx, size_t i) {
  return ctx.has_input(i) ? &ctx.in(i) : nullptr;
}

}  // namespace mote
