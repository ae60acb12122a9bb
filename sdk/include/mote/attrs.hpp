// Typed access to an op's attribute table, whichever union it lives in.
//
//   const auto& conv = attrs<fb::ConvAttrsT>(op);
//   set_attrs(op, fb::GemmAttrsT{...});
//
// returns the op's table, or a default-constructed one (the schema defaults)
// when the op carries none.
#pragma once

#include <type_traits>

#include "mote/mote_generated.h"

namespace mote {

// The op's table of type T, or nullptr when it carries none.
template <class T>
const T* find_attrs(const fb::OpT& op) {
  if constexpr (fb::NnAttrsUnionTraits<T>::enum_value != fb::NnAttrs::NONE) {
    if (op.nn.type == fb::NnAttrsUnionTraits<T>::enum_value) return static_cast<const T*>(op.nn.value);
  } else if constexpr (fb::TensorAttrsUnionTraits<T>::enum_value != fb::TensorAttrs::NONE) {
    if (op.tensor.type == fb::TensorAttrsUnionTraits<T>::enum_value) return static_cast<const T*>(op.tensor.value);
  } else if constexpr (fb::MathAttrsUnionTraits<T>::enum_value != fb::MathAttrs::NONE) {
    if (op.math.type == fb::MathAttrsUnionTraits<T>::enum_value) return static_cast<const T*>(op.math.value);
  } else {
    static_assert(sizeof(T) == 0, "not an attribute table of the schema");
  }
  return nullptr;
}

// The op's table of type T, or the schema defaults when it carries none.
template <class T>
const T& attrs(const fb::OpT& op) {
  static const T kDefaults{};
  const T* found = find_attrs<T>(op);
  return found ? *found : kDefaults;
}

// True when the op carries a table of type T (as opposed to the defaults).
template <class T>
bool has_attrs(const fb::OpT& op) {
  return find_attrs<T>(op) != nullptr;
}

// Stores `value` in the right union of `op`.
template <class T>
void set_attrs(fb::OpT& op, T value) {
  if constexpr (fb::NnAttrsUnionTraits<T>::enum_value != fb::NnAttrs::NONE) {
    op.nn.Set(std::move(value));
  } else if constexpr (fb::TensorAttrsUnionTraits<T>::enum_value != fb::TensorAttrs::NONE) {
    op.tensor.Set(std::move(value));
  } else if constexpr (fb::MathAttrsUnionTraits<T>::enum_value != fb::MathAttrs::NONE) {
    op.math.Set(std::move(value));
  } else {
    static_assert(sizeof(T) == 0, "not an attribute table of the schema");
  }
}

}  // namespace mote
