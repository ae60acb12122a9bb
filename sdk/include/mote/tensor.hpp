// Tensor: a dtype, a shape and a pointer to dense row-major data, either owned
// (64-byte aligned) or borrowed from the caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mote/export.hpp"
#include "mote/mote_generated.h"
#include "mote/status.hpp"

namespace mote {

using DType = fb::DType;
using Shape = std::vector<int64_t>;

// Bytes per element; 0 for an unknown dtype.
MOTE_API size_t dtype_size(DType dtype);
MOTE_API const char* dtype_name(DType dtype);
// "1x3x224x224"; dynamic dimensions print as "?".
MOTE_API std::string shape_to_string(const Shape& shape);
// Product of dims; -1 when a dimension is negative or the product overflows.
MOTE_API int64_t shape_numel(const Shape& shape);

// Maps C++ element types to DType.
template <class T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::F32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::F64; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::I8; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::U8; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::I32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::I64; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::Bool; };

class MOTE_API Tensor {
 public:
  Tensor() = default;

  // Allocates zero-filled, 64-byte aligned storage.
  static Tensor zeros(DType dtype, Shape shape);
  // Borrows `data`; the caller keeps it alive and large enough.
  static Tensor borrow(DType dtype, Shape shape, void* data);
  static Tensor borrow(DType dtype, Shape shape, const void* data) {
    return borrow(dtype, std::move(shape), const_cast<void*>(data));
  }
  // Views `data`, keeping `owner` (whatever holds that memory) alive for as
  // long as any Tensor shares it.
  static Tensor view(DType dtype, Shape shape, void* data, std::shared_ptr<void> owner);
  // Copies `values` into a new owned tensor.
  template <class T>
  static Tensor from_vector(Shape shape, const std::vector<T>& values) {
    Tensor t = zeros(DTypeOf<T>::value, std::move(shape));
    for (size_t i = 0; i < values.size() && i < static_cast<size_t>(t.numel()); ++i) t.data<T>()[i] = values[i];
    return t;
  }

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t dim(int axis) const { return shape_[static_cast<size_t>(axis)]; }
  int64_t numel() const { return numel_; }
  size_t bytes() const { return static_cast<size_t>(numel_) * dtype_size(dtype_); }
  bool empty() const { return data_ == nullptr && numel_ == 0; }
  bool owns_data() const { return storage_ != nullptr; }
  // True when this tensor owns its storage and no other Tensor shares it
  // (copies and reshaped() views share it). Reads of the data through copies
  // dropped on other threads happen before anything this thread does after
  // a true result, so it may then overwrite the data.
  bool sole_owner() const;

  void* raw() { return data_; }
  const void* raw() const { return data_; }
  template <class T> T* data() { return static_cast<T*>(data_); }
  template <class T> const T* data() const { return static_cast<const T*>(data_); }

  // Same data, new shape with the same element count (no copy).
  Tensor reshaped(Shape shape) const;
  // Deep copy into owned storage.
  Tensor clone() const;
  // Elements converted to double / int64, for tests and small shape tensors.
  std::vector<double> to_doubles() const;
  std::vector<int64_t> to_int64s() const;

 private:
  DType dtype_ = DType::F32;
  Shape shape_;
  int64_t numel_ = 0;
  std::shared_ptr<void> storage_;
  void* data_ = nullptr;
};

}  // namespace mote
