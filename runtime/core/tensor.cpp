#include "mote/tensor.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "runtime/core/half.hpp"

namespace mote {

size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::F32: return 4;
    case DType::F16: return 2;
    case DType::I8: return 1;
    case DType::U8: return 1;
    case DType::I32: return 4;
    case DType::I64: return 8;
    case DType::Bool: return 1;
    case DType::F64: return 8;
  }
  return 0;
}

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::F32: return "f32";
    case DType::F16: return "f16";
    case DType::I8: return "i8";
    case DType::U8: return "u8";
    case DType::I32: return "i32";
    case DType::I64: return "i64";
    case DType::Bool: return "bool";
    case DType::F64: return "f64";
  }
  return "unknown";
}

std::string shape_to_string(const Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += 'x';
    s += shape[i] < 0 ? std::string("?") : std::to_string(shape[i]);
  }
  return s;
}

int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) return -1;
    n *= d;
  }
  return n;
}

namespace {
constexpr size_t kAlignment = 64;

std::shared_ptr<void> allocate_aligned(size_t bytes) {
  if (bytes > std::numeric_limits<size_t>::max() - kAlignment) return nullptr;
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded == 0) rounded = kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (!p) return nullptr;
  std::memset(p, 0, rounded);
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

template <class T>
std::vector<double> to_doubles_typed(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(t.data<T>()[i]);
  return v;
}
}  // namespace

Tensor Tensor::zeros(DType dtype, Shape shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  const int64_t n = shape_numel(t.shape_);
  t.numel_ = std::max<int64_t>(0, n);
  // An element or byte count that would wrap is an allocation that fails
  // (no storage), never a small buffer under a huge shape.
  const bool overflows = n < 0 && std::none_of(t.shape_.begin(), t.shape_.end(), [](int64_t d) { return d < 0; });
  const size_t size = dtype_size(dtype);
  if (!overflows && (size == 0 || static_cast<uint64_t>(t.numel_) <= std::numeric_limits<size_t>::max() / size)) {
    t.storage_ = allocate_aligned(t.bytes());
  }
  t.data_ = t.storage_.get();
  return t;
}

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MOTE_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define MOTE_TSAN 1
#endif

bool Tensor::sole_owner() const {
#if defined(MOTE_TSAN)
  // ThreadSanitizer does not model the fence below and would report the new
  // owner's writes as racing with the old owners' reads: never sole there.
  return false;
#else
  if (!storage_ || storage_.use_count() != 1) return false;
  // use_count() is a relaxed load. The fence pairs it with the release
  // decrement each dropped copy made, ordering that copy's reads before our
  // writes.
  std::atomic_thread_fence(std::memory_order_acquire);
  return true;
#endif
}

Tensor Tensor::borrow(DType dtype, Shape shape, void* data) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.numel_ = std::max<int64_t>(0, shape_numel(t.shape_));
  t.data_ = data;
  return t;
}

Tensor Tensor::view(DType dtype, Shape shape, void* data, std::shared_ptr<void> owner) {
  Tensor t = borrow(dtype, std::move(shape), data);
  t.storage_ = std::move(owner);
  return t;
}

Tensor Tensor::reshaped(Shape shape) const {
  Tensor t = *this;
  t.shape_ = std::move(shape);
  t.numel_ = std::max<int64_t>(0, shape_numel(t.shape_));
  return t;
}

Tensor Tensor::clone() const {
  Tensor t = zeros(dtype_, shape_);
  if (bytes()) std::memcpy(t.data_, data_, bytes());
  return t;
}



std::vector<double> Tensor::to_doubles() const {
  switch (dtype_) {
    case DType::F32: return to_doubles_typed<float>(*this);
    case DType::F64: return to_doubles_typed<double>(*this);
    case DType::I8: return to_doubles_typed<int8_t>(*this);
    case DType::U8: return to_doubles_typed<uint8_t>(*this);
    case DType::I32: return to_doubles_typed<int32_t>(*this);
    case DType::I64: return to_doubles_typed<int64_t>(*this);
    case DType::Bool: return to_doubles_typed<bool>(*this);
    case DType::F16: {
      std::vector<double> v(static_cast<size_t>(numel_));
      for (size_t i = 0; i < v.size(); ++i) v[i] = half_to_float(data<uint16_t>()[i]);
      return v;
    }
  }
  return {};
}

std::vector<int64_t> Tensor::to_int64s() const {
  if (dtype_ == DType::I64) return std::vector<int64_t>(data<int64_t>(), data<int64_t>() + numel_);
  // Saturating, NaN to 0: a float tensor used as indices or counts may hold
  // anything, and converting an out-of-range double is undefined behaviour.
  std::vector<double> d = to_doubles();
  std::vector<int64_t> out(d.size());
  for (size_t i = 0; i < d.size(); ++i) {
    const double v = d[i];
    if (v != v) {
      out[i] = 0;
    } else if (v >= 9223372036854775807.0) {
      out[i] = std::numeric_limits<int64_t>::max();
    } else if (v <= -9223372036854775808.0) {
      out[i] = std::numeric_limits<int64_t>::min();
    } else {
      out[i] = static_cast<int64_t>(v);
    }
  }
  return out;
}

}  // namespace mote
