// Dtype check shared by the shape functions of the float-only layers (Conv,
// ConvTranspose, Gemm, MatMul): every present input has one floating dtype.
#pragma once

#include <initializer_list>
#include <string>

#include "runtime/core/op_def.hpp"

namespace mote {

// `names` are the inputs' names in the op's signature, for the messages.
inline Status require_same_float_dtype(const ShapeContext& ctx, std::initializer_list<const char*> names) {
  auto name = [&](size_t i) {
    if (i < names.size()) return std::string(names.begin()[i]);
    std::string unnamed = "#";  // built in two steps: GCC 12 warns (-Wrestrict) on "#" + str
    unnamed += std::to_string(i);
    return unnamed;
  };
  DType first = ctx.dtype(0);
  if (first != DType::F32 && first != DType::F16 && first != DType::F64) {
    return ctx.fail("input " + name(0) + " has dtype " + dtype_name(first) + ", expected a floating dtype");
  }
  for (size_t i = 1; i < ctx.inputs.size(); ++i) {
    if (ctx.has_input(i) && ctx.dtype(i) != first) {
      return ctx.fail("input " + name(i) + " has dtype " + dtype_name(ctx.dtype(i)) + " but " + name(0) + " has " +
                      dtype_name(first) + "; they must match");
    }
  }
  return {};
}

}  // namespace mote
