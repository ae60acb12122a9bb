// C API: the per-thread last error, and the functions that describe the
// library and its enums.
#include <cstring>

#include "sdk/capi/capi_internal.hpp"

// The C enums promise the same numbers as the C++ ones; a schema or status
// change that breaks this must fail the build, not silently mistranslate.
static_assert(MOTE_OK == static_cast<int>(mote::StatusCode::kOk));
static_assert(MOTE_INVALID_ARGUMENT == static_cast<int>(mote::StatusCode::kInvalidArgument));
static_assert(MOTE_INVALID_MODEL == static_cast<int>(mote::StatusCode::kInvalidModel));
static_assert(MOTE_NOT_FOUND == static_cast<int>(mote::StatusCode::kNotFound));
static_assert(MOTE_UNSUPPORTED == static_cast<int>(mote::StatusCode::kUnsupported));
static_assert(MOTE_IO_ERROR == static_cast<int>(mote::StatusCode::kIoError));
static_assert(MOTE_OUT_OF_MEMORY == static_cast<int>(mote::StatusCode::kOutOfMemory));
static_assert(MOTE_INTERNAL == static_cast<int>(mote::StatusCode::kInternal));
static_assert(MOTE_GPU_FAULT == static_cast<int>(mote::StatusCode::kGpuFault));
static_assert(MOTE_F32 == static_cast<int>(mote::DType::F32));
static_assert(MOTE_F16 == static_cast<int>(mote::DType::F16));
static_assert(MOTE_I8 == static_cast<int>(mote::DType::I8));
static_assert(MOTE_U8 == static_cast<int>(mote::DType::U8));
static_assert(MOTE_I32 == static_cast<int>(mote::DType::I32));
static_assert(MOTE_I64 == static_cast<int>(mote::DType::I64));
static_assert(MOTE_BOOL == static_cast<int>(mote::DType::Bool));
static_assert(MOTE_F64 == static_cast<int>(mote::DType::F64));
static_assert(static_cast<int>(mote::DType::MAX) == MOTE_F64, "a new DType needs a mote_dtype value");

namespace mote::capi {
namespace {

thread_local std::string t_message;
// Set instead of t_message when storing the message itself ran out of memory.
thread_local const char* t_fixed_message = nullptr;

}  // namespace

void clear_last_error() noexcept {
  t_message.clear();  // keeps the capacity: never allocates
  t_fixed_message = nullptr;
}

mote_status fail(const char* function, mote_status code, const char* message, const char* detail) noexcept {
  try {
    t_message.assign(function).append(": ").append(message).append(detail);
    t_fixed_message = nullptr;
  } catch (...) {
    t_fixed_message = "out of memory while recording an error";
  }
  return code;
}

mote_status fail(const char* function, mote_status code, const std::string& message) noexcept {
  return fail(function, code, message.c_str());
}

mote_status fail(const char* function, const Status& status) noexcept {
  return fail(function, static_cast<mote_status>(status.code()), status.message());
}

Result<Shape> to_shape(const int64_t* dims, size_t rank, bool allow_dynamic) {
  if (rank > 0 && dims == nullptr) return invalid_argument("dims is NULL but rank is " + std::to_string(rank));
  Shape shape(dims, dims + rank);
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] < 0 && !(allow_dynamic && shape[i] == -1)) {
      return invalid_argument("dimension " + std::to_string(i) + " is " + std::to_string(shape[i]));
    }
  }
  if (!allow_dynamic && shape_numel(shape) < 0) {
    return invalid_argument("shape " + shape_to_string(shape) + " has too many elements");
  }
  return shape;
}

}  // namespace mote::capi

extern "C" {

const char* mote_version(void) {
  // The macro of the header this library was built with, i.e. the library's.
  return MOTE_VERSION_STRING;
}

const char* mote_last_error(void) {
  using namespace mote::capi;
  return t_fixed_message ? t_fixed_message : t_message.c_str();
}

const char* mote_status_name(mote_status status) {
  int code = static_cast<int>(status);
  if (code < MOTE_OK || code > MOTE_GPU_FAULT) return "unknown";
  return mote::status_code_name(static_cast<mote::StatusCode>(code));
}

const char* mote_dtype_name(mote_dtype dtype) {
  int code = static_cast<int>(dtype);
  if (code < MOTE_F32 || code > MOTE_F64) return "unknown";
  return mote::dtype_name(static_cast<mote::DType>(code));
}

size_t mote_dtype_size(mote_dtype dtype) {
  int code = static_cast<int>(dtype);
  if (code < MOTE_F32 || code > MOTE_F64) return 0;
  return mote::dtype_size(static_cast<mote::DType>(code));
}

}  // extern "C"
