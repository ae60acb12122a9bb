// Errors as values. Every fallible call in Mote returns a Status or a
// Result<T>; messages name the file, op and tensor involved so a user can act
// on them without a debugger. Nothing in the runtime throws or aborts on bad
// input.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "mote/export.hpp"

namespace mote {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,  // the caller passed something wrong
  kInvalidModel = 2,     // the model file is malformed or inconsistent
  kNotFound = 3,         // a file, tensor or op that does not exist
  kUnsupported = 4,      // valid, but not implemented by this build or backend
  kIoError = 5,          // the operating system refused a read or write
  kOutOfMemory = 6,
  kInternal = 7,         // a bug in Mote; please report it
  kGpuFault = 8,         // the GPU failed (device lost, out of device memory);
                         // SessionOptions::gpu_faults says what a session does then
};

MOTE_API const char* status_code_name(StatusCode code);

class [[nodiscard]] MOTE_API Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok_status() { return {}; }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid model: ..." style one-line rendering.
  std::string to_string() const;

  // Returns a copy whose message is prefixed by `context: `, used to add the
  // file or op name as an error travels up.
  Status with_context(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status invalid_argument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status invalid_model(std::string m) { return {StatusCode::kInvalidModel, std::move(m)}; }
inline Status not_found(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
inline Status io_error(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
inline Status internal_error(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

// A value or the Status explaining why there is none.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace mote

#define MOTE_CONCAT_INNER(a, b) a##b
#define MOTE_CONCAT(a, b) MOTE_CONCAT_INNER(a, b)

// Returns the Status from the enclosing function if `expr` failed.
#define MOTE_RETURN_IF_ERROR(expr)                  \
  do {                                              \
    ::mote::Status mote_status_ = (expr);           \
    if (!mote_status_.ok()) return mote_status_;    \
  } while (0)

// Declares `lhs` from a Result expression, or returns its error Status.
#define MOTE_ASSIGN_OR_RETURN(lhs, expr) \
  MOTE_ASSIGN_OR_RETURN_IMPL(MOTE_CONCAT(mote_result_, __LINE__), lhs, expr)
#define MOTE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()
