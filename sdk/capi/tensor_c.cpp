// C API: tensors the caller creates (inputs) or receives (outputs).
#include <cstring>
#include <limits>

#include "sdk/capi/capi_internal.hpp"

using namespace mote::capi;  // NOLINT: this file only defines the C entry points

namespace {

struct CheckedShape {
  mote::Shape shape;
  size_t bytes = 0;  // what the dtype and shape need
};

// Checks the dtype and shape and works out the byte size they describe, so a
// caller's size mistake is an error here instead of an overrun later.
mote::Result<CheckedShape> check_shape(mote_dtype dtype, const int64_t* dims, size_t rank) {
  size_t element = mote_dtype_size(dtype);
  if (element == 0) return mote::invalid_argument("unknown dtype " + std::to_string(static_cast<int>(dtype)));
  MOTE_ASSIGN_OR_RETURN(mote::Shape shape, to_shape(dims, rank, /*allow_dynamic=*/false));
  auto numel = static_cast<uint64_t>(mote::shape_numel(shape));
  if (numel > std::numeric_limits<size_t>::max() / element) {
    return mote::invalid_argument("shape " + mote::shape_to_string(shape) + " is too large");
  }
  return CheckedShape{std::move(shape), static_cast<size_t>(numel) * element};
}

mote::Status check_bytes(mote_dtype dtype, const CheckedShape& checked, size_t data_bytes) {
  if (data_bytes == checked.bytes) return {};
  return mote::invalid_argument("data_bytes is " + std::to_string(data_bytes) + ", but a " +
                                mote_dtype_name(dtype) + " tensor of shape " +
                                mote::shape_to_string(checked.shape) + " holds " + std::to_string(checked.bytes));
}

// The checks every tensor query shares.
mote_status check_query(const char* function, const mote_tensor* tensor, const void* out, const char* out_name) {
  if (tensor == nullptr) return null_argument(function, "tensor");
  if (out == nullptr) return null_argument(function, out_name);
  return MOTE_OK;
}

}  // namespace

namespace mote::capi {

Result<std::vector<Tensor>> to_tensors(mote_tensor* const* inputs, size_t num_inputs) {
  if (inputs == nullptr && num_inputs > 0) return invalid_argument("inputs is NULL");
  std::vector<Tensor> tensors;
  tensors.reserve(num_inputs);
  for (size_t i = 0; i < num_inputs; ++i) {
    if (inputs[i] == nullptr) return invalid_argument("inputs[" + std::to_string(i) + "] is NULL");
    tensors.push_back(inputs[i]->tensor);  // shares the data, no copy
  }
  return tensors;
}

mote_status publish_outputs(const char* function, std::vector<Tensor> tensors, mote_tensor** outputs,
                            size_t num_outputs) {
  if (tensors.size() != num_outputs) {
    return fail(function, MOTE_INTERNAL,
                "produced " + std::to_string(tensors.size()) + " outputs for " + std::to_string(num_outputs) + " slots");
  }
  std::vector<std::unique_ptr<mote_tensor>> handles;
  handles.reserve(num_outputs);
  for (Tensor& t : tensors) handles.push_back(std::make_unique<mote_tensor>(mote_tensor{std::move(t)}));
  for (size_t i = 0; i < num_outputs; ++i) outputs[i] = handles[i].release();
  return MOTE_OK;
}

}  // namespace mote::capi

extern "C" {

mote_status mote_tensor_create(mote_dtype dtype, const int64_t* dims, size_t rank, const void* data,
                               size_t data_bytes, mote_tensor** out_tensor) {
  const char* fn = __func__;  // inside the lambda __func__ would be "operator()"
  return guarded(fn, [&] {
    if (out_tensor == nullptr) return null_argument(fn, "out_tensor");
    auto checked = check_shape(dtype, dims, rank);
    if (!checked.ok()) return fail(fn, checked.status());
    // NULL data with 0 bytes asks for zeros of whatever size the shape needs.
    bool zeros = data == nullptr && data_bytes == 0;
    if (!zeros) {
      if (data == nullptr) return null_argument(fn, "data");
      mote::Status size_ok = check_bytes(dtype, *checked, data_bytes);
      if (!size_ok.ok()) return fail(fn, size_ok);
    }
    auto handle = std::make_unique<mote_tensor>();
    handle->tensor = mote::Tensor::zeros(static_cast<mote::DType>(dtype), checked->shape);
    if (checked->bytes > 0 && handle->tensor.raw() == nullptr) {
      return fail(fn, MOTE_OUT_OF_MEMORY, "cannot allocate " + std::to_string(checked->bytes) + " bytes");
    }
    if (!zeros && data_bytes > 0) std::memcpy(handle->tensor.raw(), data, data_bytes);
    *out_tensor = handle.release();
    return MOTE_OK;
  });
}

mote_status mote_tensor_create_borrowed(mote_dtype dtype, const int64_t* dims, size_t rank, void* data,
                                        size_t data_bytes, mote_tensor** out_tensor) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (out_tensor == nullptr) return null_argument(fn, "out_tensor");
    auto checked = check_shape(dtype, dims, rank);
    if (!checked.ok()) return fail(fn, checked.status());
    mote::Status size_ok = check_bytes(dtype, *checked, data_bytes);
    if (!size_ok.ok()) return fail(fn, size_ok);
    if (data == nullptr && data_bytes > 0) return null_argument(fn, "data");
    auto handle = std::make_unique<mote_tensor>();
    handle->tensor = mote::Tensor::borrow(static_cast<mote::DType>(dtype), checked->shape, data);
    *out_tensor = handle.release();
    return MOTE_OK;
  });
}

void mote_tensor_release(mote_tensor* tensor) { delete tensor; }

mote_status mote_tensor_dtype(const mote_tensor* tensor, mote_dtype* out_dtype) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (mote_status s = check_query(fn, tensor, out_dtype, "out_dtype"); s != MOTE_OK) return s;
    *out_dtype = static_cast<mote_dtype>(tensor->tensor.dtype());
    return MOTE_OK;
  });
}

mote_status mote_tensor_rank(const mote_tensor* tensor, size_t* out_rank) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (mote_status s = check_query(fn, tensor, out_rank, "out_rank"); s != MOTE_OK) return s;
    *out_rank = static_cast<size_t>(tensor->tensor.rank());
    return MOTE_OK;
  });
}

mote_status mote_tensor_dims(const mote_tensor* tensor, int64_t* dims, size_t capacity) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (tensor == nullptr) return null_argument(fn, "tensor");
    const mote::Shape& shape = tensor->tensor.shape();
    if (capacity < shape.size()) {
      return fail(fn, MOTE_INVALID_ARGUMENT,
                  "capacity " + std::to_string(capacity) + " is below the rank " + std::to_string(shape.size()));
    }
    if (dims == nullptr && !shape.empty()) return null_argument(fn, "dims");
    std::copy(shape.begin(), shape.end(), dims);
    return MOTE_OK;
  });
}

mote_status mote_tensor_element_count(const mote_tensor* tensor, int64_t* out_count) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (mote_status s = check_query(fn, tensor, out_count, "out_count"); s != MOTE_OK) return s;
    *out_count = tensor->tensor.numel();
    return MOTE_OK;
  });
}

mote_status mote_tensor_byte_size(const mote_tensor* tensor, size_t* out_bytes) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (mote_status s = check_query(fn, tensor, out_bytes, "out_bytes"); s != MOTE_OK) return s;
    *out_bytes = tensor->tensor.bytes();
    return MOTE_OK;
  });
}

mote_status mote_tensor_data(const mote_tensor* tensor, const void** out_data) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (mote_status s = check_query(fn, tensor, out_data, "out_data"); s != MOTE_OK) return s;
    *out_data = tensor->tensor.numel() > 0 ? tensor->tensor.raw() : nullptr;
    return MOTE_OK;
  });
}

mote_status mote_tensor_mutable_data(mote_tensor* tensor, void** out_data) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (mote_status s = check_query(fn, tensor, out_data, "out_data"); s != MOTE_OK) return s;
    *out_data = tensor->tensor.numel() > 0 ? tensor->tensor.raw() : nullptr;
    return MOTE_OK;
  });
}

}  // extern "C"
