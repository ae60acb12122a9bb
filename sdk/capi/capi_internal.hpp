// What the C API's translation units share: the structs behind the opaque
// handles, and the guard every entry point runs its body in so that no C++
// exception crosses into C and every failure leaves a message behind.
#pragma once

#include <exception>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "mote/model.hpp"
#include "mote/mote.h"
#include "mote/session.hpp"
#include "mote/status.hpp"
#include "mote/tensor.hpp"
#include "mote/training.hpp"

struct mote_model {
  // Aliases the copied bytes' holder when the model was loaded from a copied
  // buffer, so sessions keep the bytes alive with the model.
  std::shared_ptr<const mote::Model> model;
  // Cached so the names handed out stay valid as long as the handle.
  std::vector<mote::TensorDesc> inputs;
  std::vector<mote::TensorDesc> outputs;
};

struct mote_session {
  std::unique_ptr<mote::Session> session;
  // Shapes given with mote_session_set_input_shape, by input name.
  std::map<std::string, mote::Shape> input_shapes;
};

struct mote_tensor {
  mote::Tensor tensor;
};

struct mote_trainer {
  std::unique_ptr<mote::TrainingSession> trainer;
  size_t num_inputs = 0;
  size_t num_outputs = 0;
};

namespace mote::capi {

// Records the failure as the thread's last error ("<function>: <message>")
// and returns its code. Never throws: when even the message cannot be stored,
// a fixed one stands in.
mote_status fail(const char* function, mote_status code, const std::string& message) noexcept;
mote_status fail(const char* function, const Status& status) noexcept;
// Same for "<message><detail>" without building a std::string first: safe to
// call where an allocation may have just failed.
mote_status fail(const char* function, mote_status code, const char* message, const char* detail = "") noexcept;
// Empties the thread's last error; called on entry to every fallible function.
void clear_last_error() noexcept;

// Runs `body` (returning mote_status) with the last error cleared first, and
// turns any exception into a status: std::bad_alloc into MOTE_OUT_OF_MEMORY,
// anything else into MOTE_INTERNAL.
template <class Body>
mote_status guarded(const char* function, Body&& body) noexcept {
  clear_last_error();
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(function, MOTE_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return fail(function, MOTE_INTERNAL, "unexpected exception: ", e.what());
  } catch (...) {
    return fail(function, MOTE_INTERNAL, "unexpected exception");
  }
}

// The failure of the null-pointer check most entry points start with.
inline mote_status null_argument(const char* function, const char* name) {
  return fail(function, MOTE_INVALID_ARGUMENT, std::string(name) + " is NULL");
}

// The C++ tensors of a C input array, sharing their data (no copy).
Result<std::vector<Tensor>> to_tensors(mote_tensor* const* inputs, size_t num_inputs);
// Publishes `tensors` as new handles into `outputs` (exactly num_outputs
// slots): all handles are built first, so a failure leaves `outputs` as it was.
mote_status publish_outputs(const char* function, std::vector<Tensor> tensors, mote_tensor** outputs,
                            size_t num_outputs);

// Checks a C shape (dims may be NULL only for rank 0) and converts it.
// `allow_dynamic` admits -1 dimensions.
Result<Shape> to_shape(const int64_t* dims, size_t rank, bool allow_dynamic);

}  // namespace mote::capi
