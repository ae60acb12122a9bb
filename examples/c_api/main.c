/* Runs a .mote model through the C API (mote/mote.h) and prints its outputs.
 *
 *   mote_example_c model.mote
 *
 * Every call returns a mote_status; on failure mote_last_error() says why.
 * f32 inputs are filled with a ramp (-1.5, -1, -0.5, 0, ...), others with
 * zeros; dynamic dimensions are set to 1. */
#include <stdio.h>
#include <stdlib.h>

#include "mote/mote.h"

#define MAX_RANK 8

/* Jumps to `cleanup` with a message when a Mote call fails. */
#define CHECK(call)                                                 \
  do {                                                              \
    if ((call) != MOTE_OK) {                                        \
      fprintf(stderr, "mote_example_c: %s\n", mote_last_error());   \
      goto cleanup;                                                 \
    }                                                               \
  } while (0)

static void print_tensor(const char* name, const mote_tensor* tensor) {
  mote_dtype dtype = MOTE_F32;
  size_t rank = 0, i;
  int64_t dims[MAX_RANK], count = 0;
  const void* data = NULL;
  if (mote_tensor_dtype(tensor, &dtype) != MOTE_OK || mote_tensor_rank(tensor, &rank) != MOTE_OK ||
      rank > MAX_RANK || mote_tensor_dims(tensor, dims, MAX_RANK) != MOTE_OK ||
      mote_tensor_element_count(tensor, &count) != MOTE_OK || mote_tensor_data(tensor, &data) != MOTE_OK) {
    fprintf(stderr, "mote_example_c: cannot describe output %s: %s\n", name, mote_last_error());
    return;
  }
  printf("%s %s ", name, mote_dtype_name(dtype));
  for (i = 0; i < rank; ++i) printf(i ? "x%lld" : "%lld", (long long)dims[i]);
  printf(":");
  if (dtype == MOTE_F32) {
    const float* values = (const float*)data;
    for (i = 0; i < (size_t)count && i < 8; ++i) printf(" %g", values[i]);
    if (count > 8) printf(" ...");
  }
  printf("\n");
}

int main(int argc, char** argv) {
  int result = 1;
  mote_model* model = NULL;
  mote_session* session = NULL;
  mote_session_options options;
  mote_tensor** inputs = NULL;
  mote_tensor** outputs = NULL;
  size_t num_inputs = 0, num_outputs = 0, i, j;

  if (argc != 2) {
    fprintf(stderr, "usage: %s MODEL.mote  (mote_example_cpp --save relu.mote makes one)\n", argv[0]);
    return 2;
  }
  printf("mote %s, model %s\n", mote_version(), argv[1]);
  CHECK(mote_model_load(argv[1], &model));
  CHECK(mote_model_input_count(model, &num_inputs));
  CHECK(mote_model_output_count(model, &num_outputs));

  CHECK(mote_session_options_init(&options));
  options.threads = 1;
  CHECK(mote_session_create(model, &options, &session));

  /* calloc so that cleanup can release every slot, filled or not. */
  inputs = (mote_tensor**)calloc(num_inputs ? num_inputs : 1, sizeof(mote_tensor*));
  outputs = (mote_tensor**)calloc(num_outputs ? num_outputs : 1, sizeof(mote_tensor*));
  if (!inputs || !outputs) {
    fprintf(stderr, "mote_example_c: out of memory\n");
    goto cleanup;
  }
  for (i = 0; i < num_inputs; ++i) {
    mote_dtype dtype = MOTE_F32;
    size_t rank = 0;
    int64_t dims[MAX_RANK], count = 0;
    void* data = NULL;
    CHECK(mote_model_input_dtype(model, i, &dtype));
    CHECK(mote_model_input_rank(model, i, &rank));
    if (rank > MAX_RANK) {
      fprintf(stderr, "mote_example_c: input %zu has rank %zu, more than this example handles\n", i, rank);
      goto cleanup;
    }
    CHECK(mote_model_input_dims(model, i, dims, MAX_RANK));
    for (j = 0; j < rank; ++j) dims[j] = dims[j] < 0 ? 1 : dims[j];
    CHECK(mote_session_set_input_shape(session, i, dims, rank));
    CHECK(mote_tensor_create(dtype, dims, rank, NULL, 0, &inputs[i])); /* zeros */
    CHECK(mote_tensor_element_count(inputs[i], &count));
    CHECK(mote_tensor_mutable_data(inputs[i], &data));
    if (dtype == MOTE_F32) {
      for (j = 0; j < (size_t)count; ++j) ((float*)data)[j] = 0.5f * (float)j - 1.5f;
    }
  }
  CHECK(mote_session_prepare(session));
  CHECK(mote_session_run(session, inputs, num_inputs, outputs, num_outputs));
  for (i = 0; i < num_outputs; ++i) {
    const char* name = NULL;
    CHECK(mote_model_output_name(model, i, &name));
    print_tensor(name, outputs[i]);
  }
  result = 0;

cleanup:
  for (i = 0; inputs && i < num_inputs; ++i) mote_tensor_release(inputs[i]);
  for (i = 0; outputs && i < num_outputs; ++i) mote_tensor_release(outputs[i]);
  free(inputs);
  free(outputs);
  mote_session_release(session);
  mote_model_release(model);
  return result;
}
