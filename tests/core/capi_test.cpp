// The C API (mote/mote.h): models made with GraphBuilder, loaded from a file
// and from buffers, run through C handles; outputs checked against values
// computed here; and the error paths, which must return codes and messages
// rather than crash.
#include "mote/mote.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "mote/mote.hpp"

namespace mote {
namespace {

const std::vector<float> kA = {-2.0f, -0.5f, 0.0f, 0.25f, 1.5f, -3.0f};  // input "a", 2x3
const std::vector<float> kB = {4.0f, -1.0f, 0.5f};                     // input "b", 3

std::vector<float> relu(const std::vector<float>& x) {
  std::vector<float> y;
  for (float v : x) y.push_back(v > 0.0f ? v : 0.0f);
  return y;
}

// Two inputs, two outputs: relu_a = Relu(a), relu_b = Relu(b). Relu is the op
// every build has a kernel for; two of each checks the index plumbing.
GraphBuilder two_relu_builder() {
  GraphBuilder b;
  int a = b.add_input("a", DType::F32, {2, 3});
  int x = b.add_input("b", DType::F32, {3});
  b.mark_output(b.add_op(fb::OpType::Relu, {a})[0], "relu_a");
  b.mark_output(b.add_op(fb::OpType::Relu, {x})[0], "relu_b");
  return b;
}

// A graph with a single op of `type`, given its minimum input count (all f32
// 2x3 graph inputs) and output count.
GraphBuilder single_op_builder(fb::OpType type, int inputs, int outputs) {
  GraphBuilder b;
  std::vector<int> ins;
  for (int i = 0; i < inputs; ++i) ins.push_back(b.add_input("in" + std::to_string(i), DType::F32, {2, 3}));
  for (int out : b.add_op(type, ins, outputs)) b.mark_output(out);
  return b;
}

class CApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("mote_capi_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    for (mote_tensor* t : tensors_) mote_tensor_release(t);
    mote_session_release(session_);
    mote_model_release(model_);
    std::filesystem::remove_all(dir_);
  }

  std::string save(const GraphBuilder& b, const std::string& name) {
    std::string path = (dir_ / name).string();
    Status st = b.save(path);
    EXPECT_TRUE(st.ok()) << st.to_string();
    return path;
  }

  // Creates a tensor the fixture releases; fails the test on error.
  mote_tensor* tensor(mote_dtype dtype, std::vector<int64_t> dims, const void* data, size_t bytes) {
    mote_tensor* t = nullptr;
    EXPECT_EQ(mote_tensor_create(dtype, dims.data(), dims.size(), data, bytes, &t), MOTE_OK) << mote_last_error();
    tensors_.push_back(t);
    return t;
  }

  void create_session(const char* backend = "cpu") {
    mote_session_options options;
    ASSERT_EQ(mote_session_options_init(&options), MOTE_OK);
    options.threads = 2;
    options.backend = backend;
    ASSERT_EQ(mote_session_create(model_, &options, &session_), MOTE_OK) << mote_last_error();
  }

  // Runs the two-Relu model and checks both outputs against relu() above.
  void run_and_check_two_relu() {
    mote_tensor* inputs[2] = {tensor(MOTE_F32, {2, 3}, kA.data(), kA.size() * 4),
                              tensor(MOTE_F32, {3}, kB.data(), kB.size() * 4)};
    mote_tensor* outputs[2] = {nullptr, nullptr};
    ASSERT_EQ(mote_session_run(session_, inputs, 2, outputs, 2), MOTE_OK) << mote_last_error();
    tensors_.push_back(outputs[0]);
    tensors_.push_back(outputs[1]);
    expect_f32(outputs[0], {2, 3}, relu(kA));
    expect_f32(outputs[1], {3}, relu(kB));
  }

  static void expect_f32(const mote_tensor* t, const std::vector<int64_t>& dims, const std::vector<float>& values) {
    mote_dtype dtype = MOTE_I8;
    size_t rank = 0, bytes = 0;
    int64_t count = 0;
    int64_t got_dims[8] = {};
    const void* data = nullptr;
    ASSERT_EQ(mote_tensor_dtype(t, &dtype), MOTE_OK);
    ASSERT_EQ(mote_tensor_rank(t, &rank), MOTE_OK);
    ASSERT_EQ(mote_tensor_dims(t, got_dims, 8), MOTE_OK);
    ASSERT_EQ(mote_tensor_element_count(t, &count), MOTE_OK);
    ASSERT_EQ(mote_tensor_byte_size(t, &bytes), MOTE_OK);
    ASSERT_EQ(mote_tensor_data(t, &data), MOTE_OK);
    EXPECT_EQ(dtype, MOTE_F32);
    ASSERT_EQ(rank, dims.size());
    EXPECT_EQ(std::vector<int64_t>(got_dims, got_dims + rank), dims);
    ASSERT_EQ(count, static_cast<int64_t>(values.size()));
    EXPECT_EQ(bytes, values.size() * 4);
    const auto* f = static_cast<const float*>(data);
    EXPECT_EQ(std::vector<float>(f, f + count), values);
  }

  std::filesystem::path dir_;
  mote_model* model_ = nullptr;
  mote_session* session_ = nullptr;
  std::vector<mote_tensor*> tensors_;
};

TEST_F(CApiTest, DescribesInputsAndOutputs) {
  ASSERT_EQ(mote_model_load(save(two_relu_builder(), "m.mote").c_str(), &model_), MOTE_OK) << mote_last_error();
  size_t n_in = 0, n_out = 0;
  ASSERT_EQ(mote_model_input_count(model_, &n_in), MOTE_OK);
  ASSERT_EQ(mote_model_output_count(model_, &n_out), MOTE_OK);
  EXPECT_EQ(n_in, 2u);
  EXPECT_EQ(n_out, 2u);

  const char* name = nullptr;
  ASSERT_EQ(mote_model_input_name(model_, 1, &name), MOTE_OK);
  EXPECT_STREQ(name, "b");
  ASSERT_EQ(mote_model_output_name(model_, 0, &name), MOTE_OK);
  EXPECT_STREQ(name, "relu_a");
  mote_dtype dtype = MOTE_I8;
  ASSERT_EQ(mote_model_input_dtype(model_, 0, &dtype), MOTE_OK);
  EXPECT_EQ(dtype, MOTE_F32);
  size_t rank = 0;
  ASSERT_EQ(mote_model_input_rank(model_, 0, &rank), MOTE_OK);
  EXPECT_EQ(rank, 2u);
  int64_t dims[2] = {0, 0};
  ASSERT_EQ(mote_model_input_dims(model_, 0, dims, 2), MOTE_OK);
  EXPECT_EQ(dims[0], 2);
  EXPECT_EQ(dims[1], 3);
  EXPECT_STREQ(mote_last_error(), "");
}

TEST_F(CApiTest, RunsAModelLoadedFromAFile) {
  ASSERT_EQ(mote_model_load(save(two_relu_builder(), "m.mote").c_str(), &model_), MOTE_OK) << mote_last_error();
  create_session();
  ASSERT_EQ(mote_session_prepare(session_), MOTE_OK) << mote_last_error();
  run_and_check_two_relu();
}

TEST_F(CApiTest, RunsWithTheReferenceBackendAndBorrowedInputs) {
  ASSERT_EQ(mote_model_load(save(two_relu_builder(), "m.mote").c_str(), &model_), MOTE_OK);
  create_session("reference");
  std::vector<float> a = kA, b = kB;
  int64_t a_dims[] = {2, 3}, b_dims[] = {3};
  mote_tensor* inputs[2] = {nullptr, nullptr};
  ASSERT_EQ(mote_tensor_create_borrowed(MOTE_F32, a_dims, 2, a.data(), a.size() * 4, &inputs[0]), MOTE_OK);
  ASSERT_EQ(mote_tensor_create_borrowed(MOTE_F32, b_dims, 1, b.data(), b.size() * 4, &inputs[1]), MOTE_OK);
  tensors_.insert(tensors_.end(), inputs, inputs + 2);
  void* data = nullptr;
  ASSERT_EQ(mote_tensor_mutable_data(inputs[0], &data), MOTE_OK);
  EXPECT_EQ(data, a.data());  // borrowed: no copy

  mote_tensor* outputs[2] = {nullptr, nullptr};
  ASSERT_EQ(mote_session_run(session_, inputs, 2, outputs, 2), MOTE_OK) << mote_last_error();
  tensors_.insert(tensors_.end(), outputs, outputs + 2);
  // Outputs own their memory: a second run with new input values leaves them as they were.
  for (float& v : a) v = -v;
  mote_tensor* again[2] = {nullptr, nullptr};
  ASSERT_EQ(mote_session_run(session_, inputs, 2, again, 2), MOTE_OK) << mote_last_error();
  tensors_.insert(tensors_.end(), again, again + 2);
  expect_f32(outputs[0], {2, 3}, relu(kA));
  expect_f32(again[0], {2, 3}, relu(a));
}

TEST_F(CApiTest, MappedInputIsWrittenInPlaceOrRefusedWithAReason) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {64, 64});  // 4096 elements: enough for the GPU
  b.mark_output(b.add_op(fb::OpType::Relu, {x})[0], "y");
  ASSERT_EQ(mote_model_load(save(b, "relu.mote").c_str(), &model_), MOTE_OK) << mote_last_error();
  create_session("cpu");
  mote_tensor* view = nullptr;
  EXPECT_EQ(mote_session_mapped_input(session_, 0, &view), MOTE_INVALID_ARGUMENT);  // not prepared
  ASSERT_EQ(mote_session_prepare(session_), MOTE_OK);
  EXPECT_EQ(mote_session_mapped_input(session_, 0, &view), MOTE_UNSUPPORTED);  // a CPU plan
  EXPECT_NE(std::string(mote_last_error()).find("cannot be written in place"), std::string::npos)
      << mote_last_error();
  EXPECT_EQ(mote_session_mapped_input(session_, 1, &view), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_session_mapped_input(session_, 0, nullptr), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_session_mapped_input(nullptr, 0, &view), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(view, nullptr);

  mote_session_release(session_);
  session_ = nullptr;
  create_session("vulkan");
  ASSERT_EQ(mote_session_prepare(session_), MOTE_OK);
  mote_status status = mote_session_mapped_input(session_, 0, &view);
  if (status == MOTE_UNSUPPORTED) GTEST_SKIP() << "no unified-memory GPU here: " << mote_last_error();
  ASSERT_EQ(status, MOTE_OK) << mote_last_error();
  tensors_.push_back(view);
  void* data = nullptr;
  ASSERT_EQ(mote_tensor_mutable_data(view, &data), MOTE_OK);
  std::vector<float> values(64 * 64);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 13) - 6.0f;
  std::copy(values.begin(), values.end(), static_cast<float*>(data));
  mote_tensor* output = nullptr;
  ASSERT_EQ(mote_session_run(session_, &view, 1, &output, 1), MOTE_OK) << mote_last_error();
  tensors_.push_back(output);
  expect_f32(output, {64, 64}, relu(values));
}

TEST_F(CApiTest, MappedOutputIsReadInPlaceOrRefusedWithAReason) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {64, 64});
  b.mark_output(b.add_op(fb::OpType::Relu, {x})[0], "y");
  ASSERT_EQ(mote_model_load(save(b, "relu.mote").c_str(), &model_), MOTE_OK) << mote_last_error();
  create_session("cpu");
  mote_tensor* view = nullptr;
  EXPECT_EQ(mote_session_mapped_output(session_, 0, &view), MOTE_INVALID_ARGUMENT);  // not prepared
  ASSERT_EQ(mote_session_prepare(session_), MOTE_OK);
  EXPECT_EQ(mote_session_mapped_output(session_, 0, &view), MOTE_UNSUPPORTED);  // a CPU plan
  EXPECT_NE(std::string(mote_last_error()).find("output 'y' cannot be read in place"), std::string::npos)
      << mote_last_error();
  EXPECT_EQ(mote_session_mapped_output(session_, 1, &view), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mote_last_error()).find("output index 1 is out of range"), std::string::npos)
      << mote_last_error();
  EXPECT_EQ(mote_session_mapped_output(session_, 0, nullptr), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(view, nullptr);

  mote_session_release(session_);
  session_ = nullptr;
  create_session("vulkan");
  ASSERT_EQ(mote_session_prepare(session_), MOTE_OK);
  mote_status status = mote_session_mapped_output(session_, 0, &view);
  if (status == MOTE_UNSUPPORTED) GTEST_SKIP() << "no unified-memory GPU here: " << mote_last_error();
  ASSERT_EQ(status, MOTE_OK) << mote_last_error();
  tensors_.push_back(view);
  std::vector<float> values(64 * 64);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 13) - 6.0f;
  mote_tensor* input = nullptr;
  ASSERT_EQ(mote_tensor_create(MOTE_F32, std::vector<int64_t>{64, 64}.data(), 2, values.data(),
                               values.size() * sizeof(float), &input),
            MOTE_OK);
  tensors_.push_back(input);
  mote_tensor* output = nullptr;
  ASSERT_EQ(mote_session_run(session_, &input, 1, &output, 1), MOTE_OK) << mote_last_error();
  tensors_.push_back(output);
  expect_f32(output, {64, 64}, relu(values));
  const void* out_bytes = nullptr;
  const void* view_bytes = nullptr;
  ASSERT_EQ(mote_tensor_data(output, &out_bytes), MOTE_OK);
  ASSERT_EQ(mote_tensor_data(view, &view_bytes), MOTE_OK);
  EXPECT_EQ(out_bytes, view_bytes);  // handed out in place, not copied
}

TEST_F(CApiTest, LoadsACopiedBufferOfAnyAlignment) {
  auto bytes = two_relu_builder().serialize();
  ASSERT_TRUE(bytes.ok());
  // Deliberately misaligned by one byte, and overwritten after loading: the
  // model must have its own aligned copy.
  std::vector<uint8_t> storage(bytes->size() + 1);
  std::memcpy(storage.data() + 1, bytes->data(), bytes->size());
  ASSERT_EQ(mote_model_load_buffer(storage.data() + 1, bytes->size(), &model_), MOTE_OK) << mote_last_error();
  std::fill(storage.begin(), storage.end(), 0xAB);
  create_session();
  // The session keeps the model (and its bytes) alive without the handle.
  mote_model_release(model_);
  model_ = nullptr;
  run_and_check_two_relu();
}

TEST_F(CApiTest, LoadsAnAlignedBufferInPlaceAndRefusesAnUnalignedOne) {
  auto bytes = two_relu_builder().serialize();
  ASSERT_TRUE(bytes.ok());
  size_t padded = (bytes->size() + 63) / 64 * 64;
  auto* aligned = static_cast<uint8_t*>(std::aligned_alloc(64, padded + 64));
  ASSERT_NE(aligned, nullptr);
  std::memcpy(aligned + 1, bytes->data(), bytes->size());
  EXPECT_EQ(mote_model_load_buffer_in_place(aligned + 1, bytes->size(), &model_), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mote_last_error()).find("aligned"), std::string::npos) << mote_last_error();
  EXPECT_EQ(model_, nullptr);  // untouched on failure

  std::memcpy(aligned, bytes->data(), bytes->size());
  ASSERT_EQ(mote_model_load_buffer_in_place(aligned, bytes->size(), &model_), MOTE_OK) << mote_last_error();
  create_session();
  run_and_check_two_relu();
  mote_session_release(session_);
  session_ = nullptr;
  mote_model_release(model_);
  model_ = nullptr;
  std::free(aligned);
}

TEST_F(CApiTest, PreparesDynamicInputsFromTheGivenShape) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {-1, 2});
  b.mark_output(b.add_op(fb::OpType::Relu, {x})[0], "y");
  ASSERT_EQ(mote_model_load(save(b, "dyn.mote").c_str(), &model_), MOTE_OK);
  int64_t dims[2] = {0, 0};
  ASSERT_EQ(mote_model_input_dims(model_, 0, dims, 2), MOTE_OK);
  EXPECT_EQ(dims[0], -1);
  create_session();

  EXPECT_EQ(mote_session_prepare(session_), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mote_last_error()).find("dynamic"), std::string::npos) << mote_last_error();
  int64_t bad[2] = {-1, 2};
  EXPECT_EQ(mote_session_set_input_shape(session_, 0, bad, 2), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_session_set_input_shape(session_, 1, bad, 2), MOTE_INVALID_ARGUMENT);

  int64_t shape[2] = {3, 2};
  ASSERT_EQ(mote_session_set_input_shape(session_, 0, shape, 2), MOTE_OK);
  ASSERT_EQ(mote_session_prepare(session_), MOTE_OK) << mote_last_error();
  mote_tensor* in = tensor(MOTE_F32, {3, 2}, kA.data(), kA.size() * 4);
  mote_tensor* out = nullptr;
  ASSERT_EQ(mote_session_run(session_, &in, 1, &out, 1), MOTE_OK) << mote_last_error();
  tensors_.push_back(out);
  expect_f32(out, {3, 2}, relu(kA));
}

TEST_F(CApiTest, RunsAddWithBroadcasting) {
  GraphBuilder b;
  int a = b.add_input("a", DType::F32, {2, 3});
  int x = b.add_input("b", DType::F32, {3});
  b.mark_output(b.add_op(fb::OpType::Add, {a, x})[0], "sum");
  ASSERT_EQ(mote_model_load(save(b, "add.mote").c_str(), &model_), MOTE_OK) << mote_last_error();
  create_session();
  mote_tensor* inputs[2] = {tensor(MOTE_F32, {2, 3}, kA.data(), kA.size() * 4),
                            tensor(MOTE_F32, {3}, kB.data(), kB.size() * 4)};
  mote_tensor* out = nullptr;
  ASSERT_EQ(mote_session_run(session_, inputs, 2, &out, 1), MOTE_OK) << mote_last_error();
  tensors_.push_back(out);
  std::vector<float> expected;  // b broadcast along the rows of a
  for (size_t i = 0; i < kA.size(); ++i) expected.push_back(kA[i] + kB[i % 3]);
  expect_f32(out, {2, 3}, expected);
}

// ---- Error paths: a code and a message, never a crash ----------------------

TEST_F(CApiTest, MissingAndGarbageFilesAreErrors) {
  std::string missing = (dir_ / "nope.mote").string();
  EXPECT_EQ(mote_model_load(missing.c_str(), &model_), MOTE_NOT_FOUND);
  EXPECT_NE(std::string(mote_last_error()).find(missing), std::string::npos) << mote_last_error();
  EXPECT_NE(std::string(mote_last_error()).find("mote_model_load"), std::string::npos) << mote_last_error();
  EXPECT_EQ(model_, nullptr);

  std::string garbage = (dir_ / "garbage.mote").string();
  std::ofstream(garbage) << "this is not a model, just some text that is long enough";
  EXPECT_EQ(mote_model_load(garbage.c_str(), &model_), MOTE_INVALID_MODEL);
  EXPECT_NE(std::string(mote_last_error()).find("not a .mote model"), std::string::npos) << mote_last_error();

  const char junk[] = "\x01\x02\x03";
  EXPECT_EQ(mote_model_load_buffer(junk, sizeof junk, &model_), MOTE_INVALID_MODEL);
  EXPECT_EQ(mote_model_load_buffer(nullptr, 0, &model_), MOTE_INVALID_MODEL);
  EXPECT_EQ(model_, nullptr);
}

TEST_F(CApiTest, WrongInputsAndOutputsAreErrors) {
  ASSERT_EQ(mote_model_load(save(two_relu_builder(), "m.mote").c_str(), &model_), MOTE_OK);
  create_session();
  mote_tensor* a = tensor(MOTE_F32, {2, 3}, kA.data(), kA.size() * 4);
  mote_tensor* outputs[2] = {nullptr, nullptr};

  EXPECT_EQ(mote_session_run(session_, &a, 1, outputs, 2), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mote_last_error()).find("got 1 inputs"), std::string::npos) << mote_last_error();
  mote_tensor* inputs[2] = {a, tensor(MOTE_F32, {3}, kB.data(), kB.size() * 4)};
  EXPECT_EQ(mote_session_run(session_, inputs, 2, outputs, 1), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mote_last_error()).find("num_outputs"), std::string::npos) << mote_last_error();
  mote_tensor* with_null[2] = {a, nullptr};
  EXPECT_EQ(mote_session_run(session_, with_null, 2, outputs, 2), MOTE_INVALID_ARGUMENT);

  // Right count, wrong dtype and wrong shape.
  int32_t ints[3] = {1, 2, 3};
  mote_tensor* wrong_dtype[2] = {a, tensor(MOTE_I32, {3}, ints, sizeof ints)};
  EXPECT_EQ(mote_session_run(session_, wrong_dtype, 2, outputs, 2), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mote_last_error()).find("dtype"), std::string::npos) << mote_last_error();
  mote_tensor* wrong_shape[2] = {inputs[1], inputs[0]};
  EXPECT_EQ(mote_session_run(session_, wrong_shape, 2, outputs, 2), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(outputs[0], nullptr);  // untouched on failure
}

TEST_F(CApiTest, NullHandlesAndBadArgumentsAreErrors) {
  size_t n = 0;
  EXPECT_EQ(mote_model_load(nullptr, &model_), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mote_last_error()).find("path is NULL"), std::string::npos) << mote_last_error();
  EXPECT_EQ(mote_model_load("x.mote", nullptr), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_model_input_count(nullptr, &n), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mote_last_error()).find("model is NULL"), std::string::npos) << mote_last_error();
  EXPECT_EQ(mote_session_create(nullptr, nullptr, &session_), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_session_prepare(nullptr), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_session_run(nullptr, nullptr, 0, nullptr, 0), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_session_options_init(nullptr), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_tensor_rank(nullptr, &n), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_tensor_data(nullptr, nullptr), MOTE_INVALID_ARGUMENT);
  mote_model_release(nullptr);  // releasing NULL is a no-op
  mote_session_release(nullptr);
  mote_tensor_release(nullptr);

  ASSERT_EQ(mote_model_load(save(two_relu_builder(), "m.mote").c_str(), &model_), MOTE_OK);
  const char* name = nullptr;
  EXPECT_EQ(mote_model_output_name(model_, 2, &name), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mote_last_error()).find("out of range"), std::string::npos) << mote_last_error();
  int64_t dims[1];
  EXPECT_EQ(mote_model_input_dims(model_, 0, dims, 1), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mote_last_error()).find("capacity"), std::string::npos) << mote_last_error();

  mote_session_options options;
  ASSERT_EQ(mote_session_options_init(&options), MOTE_OK);
  options.backend = "vulkan9";
  EXPECT_EQ(mote_session_create(model_, &options, &session_), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mote_last_error()).find("vulkan9"), std::string::npos) << mote_last_error();
  options.backend = nullptr;
  options.threads = -1;
  EXPECT_EQ(mote_session_create(model_, &options, &session_), MOTE_INVALID_ARGUMENT);
  options.threads = 0;
  options.struct_size = 0;
  EXPECT_EQ(mote_session_create(model_, &options, &session_), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mote_last_error()).find("mote_session_options_init"), std::string::npos);
  EXPECT_EQ(session_, nullptr);

  // A success clears the previous message.
  ASSERT_EQ(mote_session_create(model_, nullptr, &session_), MOTE_OK);
  EXPECT_STREQ(mote_last_error(), "");
}

TEST_F(CApiTest, TensorCreationChecksItsArguments) {
  mote_tensor* t = nullptr;
  int64_t dims[2] = {2, 3};
  float data[6] = {};
  EXPECT_EQ(mote_tensor_create(MOTE_F32, dims, 2, data, 20, &t), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mote_last_error()).find("holds 24"), std::string::npos) << mote_last_error();
  EXPECT_EQ(mote_tensor_create(static_cast<mote_dtype>(42), dims, 2, data, 24, &t), MOTE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mote_last_error()).find("unknown dtype"), std::string::npos) << mote_last_error();
  EXPECT_EQ(mote_tensor_create(MOTE_F32, nullptr, 2, data, 24, &t), MOTE_INVALID_ARGUMENT);
  int64_t negative[2] = {2, -3};
  EXPECT_EQ(mote_tensor_create(MOTE_F32, negative, 2, nullptr, 0, &t), MOTE_INVALID_ARGUMENT);
  int64_t huge[3] = {int64_t{1} << 40, int64_t{1} << 40, 1};
  EXPECT_EQ(mote_tensor_create(MOTE_F32, huge, 3, nullptr, 0, &t), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(mote_tensor_create_borrowed(MOTE_F32, dims, 2, nullptr, 24, &t), MOTE_INVALID_ARGUMENT);
  EXPECT_EQ(t, nullptr);

  // NULL data and 0 bytes: zeros of the right size. A scalar needs no dims.
  mote_tensor* zeros = tensor(MOTE_I64, {2, 3}, nullptr, 0);
  size_t bytes = 0;
  ASSERT_EQ(mote_tensor_byte_size(zeros, &bytes), MOTE_OK);
  EXPECT_EQ(bytes, 48u);
  double pi = 3.25;
  ASSERT_EQ(mote_tensor_create(MOTE_F64, nullptr, 0, &pi, sizeof pi, &t), MOTE_OK) << mote_last_error();
  tensors_.push_back(t);
  const void* p = nullptr;
  ASSERT_EQ(mote_tensor_data(t, &p), MOTE_OK);
  EXPECT_EQ(*static_cast<const double*>(p), 3.25);
  int64_t too_small[1];
  EXPECT_EQ(mote_tensor_dims(zeros, too_small, 1), MOTE_INVALID_ARGUMENT);
}

TEST_F(CApiTest, AnOpTypeFromANewerMoteIsAClearError) {
  // 4000 is no op type of this schema: what a model written by a newer Mote
  // (or a corrupted file) would hold. Loading must refuse it, naming it.
  GraphBuilder b = single_op_builder(static_cast<fb::OpType>(4000), 1, 1);
  EXPECT_EQ(mote_model_load(save(b, "newer.mote").c_str(), &model_), MOTE_UNSUPPORTED);
  std::string message = mote_last_error();
  EXPECT_NE(message.find("newer.mote"), std::string::npos) << message;
  EXPECT_NE(message.find("4000"), std::string::npos) << message;
  EXPECT_EQ(model_, nullptr);
}

TEST(CApi, VersionAndNames) {
  EXPECT_STREQ(mote_version(), MOTE_VERSION_STRING);
#ifdef MOTE_PROJECT_VERSION
  // The header's version macros are written by hand; keep them in step with CMake's.
  EXPECT_STREQ(MOTE_VERSION_STRING, MOTE_PROJECT_VERSION);
#endif
  EXPECT_STREQ(mote_status_name(MOTE_NOT_FOUND), "not found");
  EXPECT_STREQ(mote_status_name(static_cast<mote_status>(99)), "unknown");
  EXPECT_STREQ(mote_dtype_name(MOTE_BOOL), "bool");
  EXPECT_STREQ(mote_dtype_name(static_cast<mote_dtype>(-1)), "unknown");
  EXPECT_EQ(mote_dtype_size(MOTE_F16), 2u);
  EXPECT_EQ(mote_dtype_size(static_cast<mote_dtype>(99)), 0u);
}

}  // namespace
}  // namespace mote
