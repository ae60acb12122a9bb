/* Mote C API: load a .mote model, run it, read the outputs; train it.
 *
 * Plain C99, for applications and language bindings that cannot use the C++
 * API (mote/mote.hpp). The contract:
 *
 *  - Handles (mote_model, mote_session, mote_tensor, mote_trainer) are opaque; every
 *    handle a function gives out is freed with its mote_*_release function,
 *    which accepts NULL.
 *  - Every fallible function returns a mote_status. On failure the output
 *    parameters are left untouched and mote_last_error() tells why, with the
 *    file, op and tensor involved. No C++ exception ever crosses this API:
 *    an allocation failure inside is reported as MOTE_OUT_OF_MEMORY.
 *  - mote_last_error() is per thread and describes the most recent call on
 *    that thread ("" after a call that succeeded).
 *  - A model may be released while sessions created from it are alive: each
 *    session keeps what it needs. A session is used by one thread at a time;
 *    distinct sessions may run concurrently.
 *
 *   mote_model* model = NULL;
 *   if (mote_model_load("net.mote", &model) != MOTE_OK) {
 *     fprintf(stderr, "%s\n", mote_last_error());
 *   }
 */
#ifndef MOTE_MOTE_H_
#define MOTE_MOTE_H_

#include <stddef.h>
#include <stdint.h>

/* Keeps the C entry points exported should the library be built with hidden
 * visibility (a shared build that hides its C++ internals). */
#if defined(__GNUC__)
#define MOTE_C_API __attribute__((visibility("default")))
#else
#define MOTE_C_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The runtime version; mote_version() returns the string of the library
 * actually linked, which may differ from these macros of the header. */
#define MOTE_VERSION_MAJOR 0
#define MOTE_VERSION_MINOR 1
#define MOTE_VERSION_PATCH 0
#define MOTE_VERSION_STRING "0.1.0"

/* Same values as mote::StatusCode. */
typedef enum mote_status {
  MOTE_OK = 0,
  MOTE_INVALID_ARGUMENT = 1, /* the caller passed something wrong */
  MOTE_INVALID_MODEL = 2,    /* the model file is malformed or inconsistent */
  MOTE_NOT_FOUND = 3,        /* a file, tensor or op that does not exist */
  MOTE_UNSUPPORTED = 4,      /* valid, but not implemented by this build or backend */
  MOTE_IO_ERROR = 5,         /* the operating system refused a read or write */
  MOTE_OUT_OF_MEMORY = 6,
  MOTE_INTERNAL = 7,         /* a bug in Mote; please report it */
  MOTE_GPU_FAULT = 8,        /* the GPU failed (device lost, out of device memory) */
  /* Not statuses: the two ends of int make every int value representable,
     so a value from a newer library (or garbage) passed back in is not
     undefined behaviour in C++, where an enum holds only the values its
     enumerators' range spans. */
  MOTE_STATUS_RANGE_MIN_ = -0x7fffffff - 1,
  MOTE_STATUS_RANGE_ = 0x7fffffff
} mote_status;

/* Same values as the schema's DType (sdk/schema/mote.fbs). */
typedef enum mote_dtype {
  MOTE_F32 = 0,
  MOTE_F16 = 1,
  MOTE_I8 = 2,
  MOTE_U8 = 3,
  MOTE_I32 = 4,
  MOTE_I64 = 5,
  MOTE_BOOL = 6,
  MOTE_F64 = 7,
  /* Not dtypes: every int value representable (see mote_status). */
  MOTE_DTYPE_RANGE_MIN_ = -0x7fffffff - 1,
  MOTE_DTYPE_RANGE_ = 0x7fffffff
} mote_dtype;

typedef struct mote_model mote_model;
typedef struct mote_session mote_session;
typedef struct mote_tensor mote_tensor;
typedef struct mote_trainer mote_trainer;

/* ---- Library ------------------------------------------------------------ */

/* "0.1.0": the version of the linked library. Never NULL. */
MOTE_C_API const char* mote_version(void);
/* The message of the most recent call on this thread; "" when it succeeded.
 * Valid until the next Mote call on this thread. Never NULL. */
MOTE_C_API const char* mote_last_error(void);
/* "ok", "invalid argument", ...; "unknown" for a value outside the enum. */
MOTE_C_API const char* mote_status_name(mote_status status);
/* "f32", "i64", ...; "unknown" for a value outside the enum. */
MOTE_C_API const char* mote_dtype_name(mote_dtype dtype);
/* Bytes per element; 0 for a value outside the enum. */
MOTE_C_API size_t mote_dtype_size(mote_dtype dtype);

/* ---- Models ------------------------------------------------------------- */

/* Memory-maps and verifies a .mote file. */
MOTE_C_API mote_status mote_model_load(const char* path, mote_model** out_model);
/* Copies `size` bytes at `data` (any alignment) and loads them; the caller
 * may free `data` as soon as this returns. */
MOTE_C_API mote_status mote_model_load_buffer(const void* data, size_t size, mote_model** out_model);
/* Uses `data` in place, without a copy: it must be 64-byte aligned and stay
 * valid and unchanged until the model and every session made from it are
 * released. */
MOTE_C_API mote_status mote_model_load_buffer_in_place(const void* data, size_t size, mote_model** out_model);
MOTE_C_API void mote_model_release(mote_model* model);

MOTE_C_API mote_status mote_model_input_count(const mote_model* model, size_t* out_count);
MOTE_C_API mote_status mote_model_output_count(const mote_model* model, size_t* out_count);
/* The name stays valid for the lifetime of the model handle. */
MOTE_C_API mote_status mote_model_input_name(const mote_model* model, size_t index, const char** out_name);
MOTE_C_API mote_status mote_model_output_name(const mote_model* model, size_t index, const char** out_name);
MOTE_C_API mote_status mote_model_input_dtype(const mote_model* model, size_t index, mote_dtype* out_dtype);
MOTE_C_API mote_status mote_model_output_dtype(const mote_model* model, size_t index, mote_dtype* out_dtype);
MOTE_C_API mote_status mote_model_input_rank(const mote_model* model, size_t index, size_t* out_rank);
MOTE_C_API mote_status mote_model_output_rank(const mote_model* model, size_t index, size_t* out_rank);
/* Writes the declared dimensions (-1 for a dynamic one) into `dims`, which
 * holds `capacity` entries; fails when capacity is below the rank. An output
 * whose shape the model leaves to shape inference has rank 0 here. */
MOTE_C_API mote_status mote_model_input_dims(const mote_model* model, size_t index, int64_t* dims, size_t capacity);
MOTE_C_API mote_status mote_model_output_dims(const mote_model* model, size_t index, int64_t* dims, size_t capacity);

/* ---- Sessions ----------------------------------------------------------- */

typedef struct mote_session_options {
  /* sizeof(mote_session_options), set by mote_session_options_init: lets a
   * newer library read an older caller's struct. */
  size_t struct_size;
  /* Threads for CPU kernels; 0 = one per hardware thread. */
  int32_t threads;
  /* "cpu" (optimised kernels), "vulkan" (GPU; ops it lacks run on the CPU,
   * and without Vulkan everything does), "auto" (vulkan on a real GPU, else
   * cpu) or "reference" (plain kernels, for checking). NULL means "cpu".
   * Copied at session creation. MOTE_BACKEND in the environment overrides. */
  const char* backend;
  /* Most bytes a plan may take for intermediates and outputs (host arena plus
   * outputs, device arena, run-time-shaped tensors); 0 = no limit. A larger
   * plan fails with MOTE_OUT_OF_MEMORY, naming the bytes. Added after the
   * first version: read only when struct_size covers it. */
  uint64_t max_arena_bytes;
} mote_session_options;

/* Fills `options` with the defaults: 0 threads (all), backend "cpu". */
MOTE_C_API mote_status mote_session_options_init(mote_session_options* options);
/* `options` may be NULL for the defaults. */
MOTE_C_API mote_status mote_session_create(const mote_model* model, const mote_session_options* options,
                                           mote_session** out_session);
MOTE_C_API void mote_session_release(mote_session* session);

/* Sets the shape the next mote_session_prepare plans input `index` for;
 * needed for inputs with dynamic dimensions. */
MOTE_C_API mote_status mote_session_set_input_shape(mote_session* session, size_t index, const int64_t* dims,
                                                    size_t rank);
/* Plans for the shapes set above (the declared shape for the others): shape
 * inference, constant folding, memory plan, kernel set-up. Optional: run
 * plans by itself when the input shapes change. */
MOTE_C_API mote_status mote_session_prepare(mote_session* session);
/* Runs with `num_inputs` inputs in the model's input order (neither the array
 * nor the tensors are modified) and stores a new tensor handle for each of
 * the model's outputs, in order, into `outputs` (which has `num_outputs`
 * slots, exactly the model's output count). The caller releases each output;
 * outputs own their memory and stay valid after later runs, except those
 * read in place (mote_session_mapped_output). */
MOTE_C_API mote_status mote_session_run(mote_session* session, mote_tensor* const* inputs, size_t num_inputs,
                                        mote_tensor** outputs, size_t num_outputs);

/* Zero-copy input on unified memory (Jetson, phones, integrated GPUs): a
 * tensor over the device memory the GPU reads input `index` from, for the
 * caller to fill (mote_tensor_mutable_data) and pass to mote_session_run,
 * which then copies nothing for it. Call after mote_session_prepare; the
 * first call for an input (or output, mote_session_mapped_output) plans
 * again, once: take the tensors you keep after the last such first call.
 * Release the handle as any tensor (it keeps that memory alive). MOTE_UNSUPPORTED,
 * with the reason in mote_last_error, where the GPU cannot read the input in
 * place (CPU session, GPU memory the CPU does not map, f16 storage, no GPU
 * op reads it). */
MOTE_C_API mote_status mote_session_mapped_input(mote_session* session, size_t index, mote_tensor** out_tensor);

/* Zero-copy output on unified memory: a tensor over the device memory the
 * GPU writes output `index` to. From this call on, mote_session_run hands
 * out that output as a tensor sharing device bytes (no copy), which every
 * run overwrites: read it before the next run. Passing it back as an input
 * is safe (it is copied first). Call after mote_session_prepare; the first
 * call for an output (or input) plans again, once, and tensors mapped
 * before it then belong to the old plan: take those you keep after it.
 * Read the tensor mote_session_run returns: after a plan for other shapes it
 * is not this one. Release the handle as any tensor. MOTE_UNSUPPORTED, with
 * the reason in mote_last_error, where the output cannot be read in place
 * (CPU session, GPU memory the CPU does not map, f16 storage, no GPU op
 * makes it). */
MOTE_C_API mote_status mote_session_mapped_output(mote_session* session, size_t index, mote_tensor** out_tensor);

/* Zero-copy input from the caller's own memory: the GPU reads input `index`
 * straight from `data` on every run (VK_EXT_external_memory_host). `data`
 * must be aligned to mote_session_import_alignment and `bytes` a multiple of
 * it, at least the input's size. Stores a tensor over `data` to pass to
 * mote_session_run, which then copies nothing for it. Keep the memory valid
 * and unwritten during runs until the session is released or plans for other
 * input shapes (which forgets the import). Call after mote_session_prepare;
 * the first call for an input, or one with other memory, plans again.
 * MOTE_INVALID_ARGUMENT for misaligned or short memory, memory overlapping
 * another import, or memory the driver refuses to import; MOTE_UNSUPPORTED,
 * with the reason in mote_last_error, where the GPU cannot read the input
 * there (CPU session, no extension, no GPU op reads it). */
MOTE_C_API mote_status mote_session_import_input(mote_session* session, size_t index, void* data, size_t bytes,
                                                 mote_tensor** out_tensor);

/* Zero-copy output into the caller's own memory: the GPU writes output
 * `index` to `data`, and mote_session_run hands it out as a tensor over
 * `data`, overwritten by every run. Same rules as mote_session_import_input;
 * MOTE_UNSUPPORTED where no GPU op makes the output or it is stored as f16. */
MOTE_C_API mote_status mote_session_import_output(mote_session* session, size_t index, void* data, size_t bytes,
                                                  mote_tensor** out_tensor);

/* The alignment (of address and size) the two calls above need, or 0 where
 * the session's plan cannot take the caller's memory (CPU session, no
 * extension, not prepared). */
MOTE_C_API mote_status mote_session_import_alignment(const mote_session* session, size_t* out_alignment);

/* ---- Tensors ------------------------------------------------------------ */

/* A new tensor owning a copy of `data` (`data_bytes` must equal the element
 * count times the dtype size); `data` NULL with `data_bytes` 0 gives zeros.
 * `dims` may be NULL when `rank` is 0 (a scalar). */
MOTE_C_API mote_status mote_tensor_create(mote_dtype dtype, const int64_t* dims, size_t rank, const void* data,
                                          size_t data_bytes, mote_tensor** out_tensor);
/* A tensor over the caller's memory, without a copy: `data` stays valid and
 * large enough until the tensor is released. */
MOTE_C_API mote_status mote_tensor_create_borrowed(mote_dtype dtype, const int64_t* dims, size_t rank, void* data,
                                                   size_t data_bytes, mote_tensor** out_tensor);
MOTE_C_API void mote_tensor_release(mote_tensor* tensor);

MOTE_C_API mote_status mote_tensor_dtype(const mote_tensor* tensor, mote_dtype* out_dtype);
MOTE_C_API mote_status mote_tensor_rank(const mote_tensor* tensor, size_t* out_rank);
/* Writes the dimensions into `dims` (`capacity` entries, at least the rank). */
MOTE_C_API mote_status mote_tensor_dims(const mote_tensor* tensor, int64_t* dims, size_t capacity);
MOTE_C_API mote_status mote_tensor_element_count(const mote_tensor* tensor, int64_t* out_count);
MOTE_C_API mote_status mote_tensor_byte_size(const mote_tensor* tensor, size_t* out_bytes);
/* Dense row-major elements; NULL for a tensor with no elements. */
MOTE_C_API mote_status mote_tensor_data(const mote_tensor* tensor, const void** out_data);
MOTE_C_API mote_status mote_tensor_mutable_data(mote_tensor* tensor, void** out_data);

/* ---- Training ----------------------------------------------------------- */

/* How a mote_trainer trains (mote/training.hpp has the C++ equivalents and
 * the exact formulas). Strings are copied at creation. */
typedef struct mote_training_options {
  /* sizeof(mote_training_options), set by mote_training_options_init. */
  size_t struct_size;
  /* "softmax_cross_entropy" (logits [N, C], labels i64 or i32 [N]), "mse" or
   * "bce_with_logits" (labels f32, the output's shape). */
  const char* loss;
  /* The model output the loss reads; NULL or "" for the first one. */
  const char* output;
  /* Which f32 constants train: all (both NULL), those whose names match the
   * regex, or those read downstream of the named tensor (the head). */
  const char* trainable_regex;
  const char* trainable_after;
  /* "sgd" (momentum; weight_decay is an L2 term) or "adamw" (decoupled). */
  const char* optimizer;
  float learning_rate;
  float weight_decay;
  float momentum;
  float beta1;
  float beta2;
  float epsilon;
  /* "constant", "step" (lr * gamma^(step / step_size)) or "cosine" (down to
   * min_lr over total_steps); a linear warm-up of warmup_steps precedes it. */
  const char* schedule;
  int64_t warmup_steps;
  int64_t step_size;
  float gamma;
  int64_t total_steps;
  float min_lr;
  /* Of the sessions running the training step: as mote_session_options. */
  int32_t threads;
  const char* backend;
} mote_training_options;

/* Fills `options` with the defaults: softmax cross-entropy, SGD at 0.01, a
 * constant rate, every parameter trained, backend "cpu". */
MOTE_C_API mote_status mote_training_options_init(mote_training_options* options);
/* `options` may be NULL for the defaults. The trainer keeps what it needs of
 * the model: the model handle may be released first. */
MOTE_C_API mote_status mote_trainer_create(const mote_model* model, const mote_training_options* options,
                                           mote_trainer** out_trainer);
MOTE_C_API void mote_trainer_release(mote_trainer* trainer);
/* One optimisation step on a batch (inputs in the model's input order);
 * stores the batch's loss before the update in `out_loss` (may be NULL). */
MOTE_C_API mote_status mote_trainer_train_step(mote_trainer* trainer, mote_tensor* const* inputs,
                                               size_t num_inputs, const mote_tensor* labels, float* out_loss);
/* The model's outputs with the current parameters, as mote_session_run. */
MOTE_C_API mote_status mote_trainer_evaluate(mote_trainer* trainer, mote_tensor* const* inputs, size_t num_inputs,
                                             mote_tensor** outputs, size_t num_outputs);
/* Writes the trained model to `path` (a .mote that loads for inference) and
 * the optimizer state to `path` + ".optimizer", each atomically. */
MOTE_C_API mote_status mote_trainer_save(const mote_trainer* trainer, const char* path);
/* Reads `path` + ".optimizer" so training resumes exactly; create the trainer
 * from the model saved at `path`. */
MOTE_C_API mote_status mote_trainer_restore_optimizer(mote_trainer* trainer, const char* path);
/* Steps taken so far (restored ones included). */
MOTE_C_API mote_status mote_trainer_step_count(const mote_trainer* trainer, int64_t* out_steps);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* MOTE_MOTE_H_ */
