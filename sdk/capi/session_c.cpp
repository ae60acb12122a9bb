// C API: sessions: create with options, plan for input shapes, run.
#include <cstddef>

#include "sdk/capi/capi_internal.hpp"

using namespace mote::capi;  // NOLINT: this file only defines the C entry points

namespace {

// The size of the first version of mote_session_options: callers compiled
// against it pass at least this much, and later fields are read only when
// struct_size says the caller has them.
constexpr size_t kOptionsV1Size = offsetof(mote_session_options, backend) + sizeof(const char*);
constexpr size_t kOptionsV2Size = offsetof(mote_session_options, max_arena_bytes) + sizeof(uint64_t);

mote::Result<mote::SessionOptions> convert_options(const mote_session_options* options) {
  mote::SessionOptions converted;
  if (options == nullptr) return converted;
  if (options->struct_size < kOptionsV1Size) {
    return mote::invalid_argument("options->struct_size is " + std::to_string(options->struct_size) +
                                  "; call mote_session_options_init first");
  }
  converted.threads = options->threads;
  if (options->backend != nullptr) {
    MOTE_ASSIGN_OR_RETURN(converted.backend, mote::parse_backend(options->backend));
  }
  if (options->struct_size >= kOptionsV2Size) converted.max_arena_bytes = options->max_arena_bytes;
  return converted;
}

// The name of the session's model input (or output) `index`, or nullptr when
// out of range.
const std::string* io_name(const mote_session& session, size_t index, bool input) {
  const mote::fb::GraphT& graph = session.session->model().graph();
  const std::vector<int32_t>& list = input ? graph.inputs : graph.outputs;
  if (index >= list.size()) return nullptr;
  return &graph.tensors[static_cast<size_t>(list[index])]->name;
}

mote_status io_out_of_range(const char* fn, const mote_session& session, size_t index, bool input) {
  const mote::fb::GraphT& graph = session.session->model().graph();
  return fail(fn, MOTE_INVALID_ARGUMENT,
              std::string(input ? "input" : "output") + " index " + std::to_string(index) +
                  " is out of range (the model has " +
                  std::to_string(input ? graph.inputs.size() : graph.outputs.size()) + ")");
}

// mote_session_mapped_input and _output: the view of input (or output) `index`.
mote_status mapped_view(const char* fn, mote_session* session, size_t index, bool input, mote_tensor** out_tensor) {
  if (session == nullptr) return null_argument(fn, "session");
  if (out_tensor == nullptr) return null_argument(fn, "out_tensor");
  const std::string* name = io_name(*session, index, input);
  if (!name) return io_out_of_range(fn, *session, index, input);
  auto view = input ? session->session->mapped_input(*name) : session->session->mapped_output(*name);
  if (!view.ok()) return fail(fn, view.status());
  *out_tensor = new mote_tensor{std::move(view).value()};
  return MOTE_OK;
}

// mote_session_import_input and _output: input (or output) `index` in the
// caller's memory, and a tensor over it.
mote_status import_view(const char* fn, mote_session* session, size_t index, bool input, void* data, size_t bytes,
                        mote_tensor** out_tensor) {
  if (session == nullptr) return null_argument(fn, "session");
  if (data == nullptr) return null_argument(fn, "data");
  if (out_tensor == nullptr) return null_argument(fn, "out_tensor");
  const std::string* name = io_name(*session, index, input);
  if (!name) return io_out_of_range(fn, *session, index, input);
  auto view = input ? session->session->import_input(*name, data, bytes)
                    : session->session->import_output(*name, data, bytes);
  if (!view.ok()) return fail(fn, view.status());
  *out_tensor = new mote_tensor{std::move(view).value()};
  return MOTE_OK;
}

}  // namespace

extern "C" {

mote_status mote_session_options_init(mote_session_options* options) {
  const char* fn = __func__;  // inside the lambda __func__ would be "operator()"
  return guarded(fn, [&] {
    if (options == nullptr) return null_argument(fn, "options");
    *options = mote_session_options{};
    options->struct_size = sizeof(mote_session_options);
    options->threads = 0;
    options->backend = "cpu";
    return MOTE_OK;
  });
}

mote_status mote_session_create(const mote_model* model, const mote_session_options* options,
                                mote_session** out_session) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (model == nullptr) return null_argument(fn, "model");
    if (out_session == nullptr) return null_argument(fn, "out_session");
    auto converted = convert_options(options);
    if (!converted.ok()) return fail(fn, converted.status());
    auto session = mote::Session::create(model->model, *converted);
    if (!session.ok()) return fail(fn, session.status());
    auto handle = std::make_unique<mote_session>();
    handle->session = std::move(session).value();
    *out_session = handle.release();
    return MOTE_OK;
  });
}

void mote_session_release(mote_session* session) { delete session; }

mote_status mote_session_set_input_shape(mote_session* session, size_t index, const int64_t* dims, size_t rank) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (session == nullptr) return null_argument(fn, "session");
    const std::string* name = io_name(*session, index, true);
    if (!name) return io_out_of_range(fn, *session, index, true);
    auto shape = to_shape(dims, rank, /*allow_dynamic=*/false);
    if (!shape.ok()) return fail(fn, shape.status());
    session->input_shapes[*name] = std::move(shape).value();
    return MOTE_OK;
  });
}

mote_status mote_session_prepare(mote_session* session) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (session == nullptr) return null_argument(fn, "session");
    mote::Status status = session->session->prepare(session->input_shapes);
    if (!status.ok()) return fail(fn, status);
    return MOTE_OK;
  });
}

mote_status mote_session_mapped_input(mote_session* session, size_t index, mote_tensor** out_tensor) {
  const char* fn = __func__;
  return guarded(fn, [&] { return mapped_view(fn, session, index, true, out_tensor); });
}

mote_status mote_session_mapped_output(mote_session* session, size_t index, mote_tensor** out_tensor) {
  const char* fn = __func__;
  return guarded(fn, [&] { return mapped_view(fn, session, index, false, out_tensor); });
}

mote_status mote_session_import_input(mote_session* session, size_t index, void* data, size_t bytes,
                                      mote_tensor** out_tensor) {
  const char* fn = __func__;
  return guarded(fn, [&] { return import_view(fn, session, index, true, data, bytes, out_tensor); });
}

mote_status mote_session_import_output(mote_session* session, size_t index, void* data, size_t bytes,
                                       mote_tensor** out_tensor) {
  const char* fn = __func__;
  return guarded(fn, [&] { return import_view(fn, session, index, false, data, bytes, out_tensor); });
}

mote_status mote_session_import_alignment(const mote_session* session, size_t* out_alignment) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (session == nullptr) return null_argument(fn, "session");
    if (out_alignment == nullptr) return null_argument(fn, "out_alignment");
    *out_alignment = session->session->import_alignment();
    return MOTE_OK;
  });
}

mote_status mote_session_run(mote_session* session, mote_tensor* const* inputs, size_t num_inputs,
                             mote_tensor** outputs, size_t num_outputs) {
  const char* fn = __func__;
  return guarded(fn, [&] {
    if (session == nullptr) return null_argument(fn, "session");
    if (inputs == nullptr && num_inputs > 0) return null_argument(fn, "inputs");
    if (outputs == nullptr && num_outputs > 0) return null_argument(fn, "outputs");
    size_t expected_outputs = session->session->model().graph().outputs.size();
    if (num_outputs != expected_outputs) {
      // Checked before running so a wrong count never leaks output handles.
      return fail(fn, MOTE_INVALID_ARGUMENT,
                  "num_outputs is " + std::to_string(num_outputs) + ", the model has " +
                      std::to_string(expected_outputs) + " outputs");
    }
    auto tensors = to_tensors(inputs, num_inputs);
    if (!tensors.ok()) return fail(fn, tensors.status());
    auto result = session->session->run(*tensors);
    if (!result.ok()) return fail(fn, result.status());
    return publish_outputs(fn, std::move(result).value(), outputs, num_outputs);
  });
}

}  // extern "C"
