// Dispatch on a tensor's dtype for the reference kernels: visit(T{}) with
// the C++ type of the dtype, false when the dtype is not of the family.
#pragma once

#include <cstdint>

#include "mote/tensor.hpp"

namespace mote::reference {

// f32, f64, i32, i64, i8, u8.
template <class Visit>
bool visit_number_type(DType dtype, Visit visit) {
  switch (dtype) {
    case DType::F32: visit(float{}); return true;
    case DType::F64: visit(double{}); return true;
    case DType::I32: visit(int32_t{}); return true;
    case DType::I64: visit(int64_t{}); return true;
    case DType::I8: visit(int8_t{}); return true;
    case DType::U8: visit(uint8_t{}); return true;
    default: return false;
  }
}

// The numbers and bool.
template <class Visit>
bool visit_value_type(DType dtype, Visit visit) {
  if (dtype == DType::Bool) {
    visit(bool{});
    return true;
  }
  return visit_number_type(dtype, visit);
}

}  // namespace mote::reference
