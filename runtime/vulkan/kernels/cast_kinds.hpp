// cast.comp's element kinds (its KIND_* defines), shared by the Cast kernel
// and the precision conversions the program inserts (storage_precision.cpp).
#pragma once

#include "mote/tensor.hpp"

namespace mote::vk {

enum CastKind : int {
  kCastFloat = 0,  // an F32 tensor in the dispatch's storage precision
  kCastI32 = 1,
  kCastI64 = 2,
  kCastBool = 3,  // bytes, four to a word
  kCastHalf = 4,  // 16-bit values, two to a word (F16 data, or F32 stored as f16)
};

// The kind of a tensor of `dtype`, or -1 when cast.comp has none.
inline int cast_kind(DType dtype) {
  switch (dtype) {
    case DType::F32:
      return kCastFloat;
    case DType::I32:
      return kCastI32;
    case DType::I64:
      return kCastI64;
    case DType::Bool:
      return kCastBool;
    case DType::F16:
      return kCastHalf;
    default:
      return -1;
  }
}

}  // namespace mote::vk
