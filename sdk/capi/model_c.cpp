// C API: loading models and describing their inputs and outputs.
#include <cstdlib>
#include <cstring>

#include "sdk/capi/capi_internal.hpp"

namespace mote::capi {
namespace {

// A model loaded from a copy of the caller's buffer, together with that copy.
// Sessions hold the model through an aliasing shared_ptr to this holder, so
// the bytes live exactly as long as anything that reads them.
struct CopiedModel {
  std::unique_ptr<void, void (*)(void*)> bytes{nullptr, std::free};
  std::shared_ptr<const Model> model;  // declared last: destroyed first
};

mote_status finish_load(const char* function, Result<std::shared_ptr<const Model>> loaded, mote_model** out) {
  if (!loaded.ok()) return fail(function, loaded.status());
  auto handle = std::make_unique<mote_model>();
  handle->model = std::move(loaded).value();
  handle->inputs = handle->model->inputs();
  handle->outputs = handle->model->outputs();
  *out = handle.release();
  return MOTE_OK;
}

// The checks every per-input / per-output query shares; returns the
// description or sets the error and returns nullptr.
const TensorDesc* find_desc(const char* function, const mote_model* model, bool output, size_t index,
                            mote_status& status) {
  if (model == nullptr) {
    status = null_argument(function, "model");
    return nullptr;
  }
  const auto& list = output ? model->outputs : model->inputs;
  if (index >= list.size()) {
    status = fail(function, MOTE_INVALID_ARGUMENT,
                  std::string(output ? "output" : "input") + " index " + std::to_string(index) +
                      " is out of range (the model has " + std::to_string(list.size()) + ")");
    return nullptr;
  }
  return &list[index];
}

mote_status count(const char* function, const mote_model* model, bool output, size_t* out_count) {
  return guarded(function, [&] {
    if (model == nullptr) return null_argument(function, "model");
    if (out_count == nullptr) return null_argument(function, "out_count");
    *out_count = output ? model->outputs.size() : model->inputs.size();
    return MOTE_OK;
  });
}

mote_status name(const char* function, const mote_model* model, bool output, size_t index, const char** out) {
  return guarded(function, [&] {
    mote_status status = MOTE_OK;
    const TensorDesc* desc = find_desc(function, model, output, index, status);
    if (!desc) return status;
    if (out == nullptr) return null_argument(function, "out_name");
    *out = desc->name.c_str();
    return MOTE_OK;
  });
}

mote_status dtype(const char* function, const mote_model* model, bool output, size_t index, mote_dtype* out) {
  return guarded(function, [&] {
    mote_status status = MOTE_OK;
    const TensorDesc* desc = find_desc(function, model, output, index, status);
    if (!desc) return status;
    if (out == nullptr) return null_argument(function, "out_dtype");
    *out = static_cast<mote_dtype>(desc->dtype);
    return MOTE_OK;
  });
}

mote_status rank(const char* function, const mote_model* model, bool output, size_t index, size_t* out) {
  return guarded(function, [&] {
    mote_status status = MOTE_OK;
    const TensorDesc* desc = find_desc(function, model, output, index, status);
    if (!desc) return status;
    if (out == nullptr) return null_argument(function, "out_rank");
    *out = desc->shape.size();
    return MOTE_OK;
  });
}

mote_status dims(const char* function, const mote_model* model, bool output, size_t index, int64_t* out,
                 size_t capacity) {
  return guarded(function, [&] {
    mote_status status = MOTE_OK;
    const TensorDesc* desc = find_desc(function, model, output, index, status);
    if (!desc) return status;
    if (capacity < desc->shape.size()) {
      return fail(function, MOTE_INVALID_ARGUMENT,
                  "capacity " + std::to_string(capacity) + " is below the rank " +
                      std::to_string(desc->shape.size()) + " of '" + desc->name + "'");
    }
    if (out == nullptr && !desc->shape.empty()) return null_argument(function, "dims");
    std::copy(desc->shape.begin(), desc->shape.end(), out);
    return MOTE_OK;
  });
}

}  // namespace
}  // namespace mote::capi

using namespace mote::capi;  // NOLINT: this file only defines the C entry points

extern "C" {

mote_status mote_model_load(const char* path, mote_model** out_model) {
  const char* fn = __func__;  // inside the lambda __func__ would be "operator()"
  return guarded(fn, [&] {
    if (path == nullptr) return null_argument(fn, "path");
    if (out_model == nullptr) return null_argument(fn, "out_model");
    return finish_load(fn, mote::Model::load(path), out_model);
  });
}

mote_status mote_model_load_buffer(const void* data, size_t size, mote_model** out_model) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (data == nullptr && size > 0) return null_argument(fn, "data");
    if (out_model == nullptr) return null_argument(fn, "out_model");
    auto holder = std::make_shared<CopiedModel>();
    // The runtime uses weights in place and promises 64-byte alignment to the
    // kernels, so the copy is aligned whatever the caller's buffer was.
    size_t rounded = (size + mote::kWeightAlignment - 1) / mote::kWeightAlignment * mote::kWeightAlignment;
    holder->bytes.reset(std::aligned_alloc(mote::kWeightAlignment, rounded ? rounded : mote::kWeightAlignment));
    if (!holder->bytes) return fail(fn, MOTE_OUT_OF_MEMORY, "cannot allocate " + std::to_string(size) + " bytes");
    if (size > 0) std::memcpy(holder->bytes.get(), data, size);
    auto loaded = mote::Model::from_buffer(holder->bytes.get(), size);
    if (!loaded.ok()) return fail(fn, loaded.status());
    holder->model = std::move(loaded).value();
    const mote::Model* raw = holder->model.get();
    return finish_load(fn, std::shared_ptr<const mote::Model>(std::move(holder), raw), out_model);
  });
}

mote_status mote_model_load_buffer_in_place(const void* data, size_t size, mote_model** out_model) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (data == nullptr && size > 0) return null_argument(fn, "data");
    if (out_model == nullptr) return null_argument(fn, "out_model");
    return finish_load(fn, mote::Model::from_buffer(data, size), out_model);
  });
}

void mote_model_release(mote_model* model) { delete model; }

mote_status mote_model_input_count(const mote_model* model, size_t* out_count) {
  return count(__func__, model, false, out_count);
}
mote_status mote_model_output_count(const mote_model* model, size_t* out_count) {
  return count(__func__, model, true, out_count);
}
mote_status mote_model_input_name(const mote_model* model, size_t index, const char** out_name) {
  return name(__func__, model, false, index, out_name);
}
mote_status mote_model_output_name(const mote_model* model, size_t index, const char** out_name) {
  return name(__func__, model, true, index, out_name);
}
mote_status mote_model_input_dtype(const mote_model* model, size_t index, mote_dtype* out_dtype) {
  return dtype(__func__, model, false, index, out_dtype);
}
mote_status mote_model_output_dtype(const mote_model* model, size_t index, mote_dtype* out_dtype) {
  return dtype(__func__, model, true, index, out_dtype);
}
mote_status mote_model_input_rank(const mote_model* model, size_t index, size_t* out_rank) {
  return rank(__func__, model, false, index, out_rank);
}
mote_status mote_model_output_rank(const mote_model* model, size_t index, size_t* out_rank) {
  return rank(__func__, model, true, index, out_rank);
}
mote_status mote_model_input_dims(const mote_model* model, size_t index, int64_t* dims_out, size_t capacity) {
  return dims(__func__, model, false, index, dims_out, capacity);
}
mote_status mote_model_output_dims(const mote_model* model, size_t index, int64_t* dims_out, size_t capacity) {
  return dims(__func__, model, true, index, dims_out, capacity);
}

}  // extern "C"
