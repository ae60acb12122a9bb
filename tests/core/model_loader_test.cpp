// The loader must turn every malformed file into a clear error, never a
// crash: a model file is untrusted input.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>

#include "mote/mote.hpp"
#include "tests/support/temp_dir.hpp"

namespace mote {
namespace {

// x -> Add(x, c) -> Relu -> y, with a constant c of 4 floats.
std::vector<uint8_t> small_model_bytes() {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {1, 4});
  int c = b.add_constant("c", Tensor::from_vector<float>({4}, {1, 2, 3, 4}));
  int s = b.add_op(fb::OpType::Add, {x, c}, 1, "add")[0];
  int y = b.add_op(fb::OpType::Relu, {s}, 1, "relu")[0];
  b.mark_output(y, "y");
  b.set_metadata("labels", "a,b,c,d");
  auto bytes = b.serialize();
  EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
  return *bytes;
}

// Copies into 64-byte aligned storage, as a mapped file would be.
struct AlignedCopy {
  explicit AlignedCopy(const std::vector<uint8_t>& bytes) : tensor(Tensor::zeros(DType::U8, {int64_t(bytes.size())})) {
    std::copy(bytes.begin(), bytes.end(), tensor.data<uint8_t>());
  }
  uint8_t* data() { return tensor.data<uint8_t>(); }
  size_t size() const { return tensor.bytes(); }
  Tensor tensor;
};

Status load_status(const std::vector<uint8_t>& bytes, size_t size) {
  AlignedCopy copy(bytes);
  return Model::from_buffer(copy.data(), size, "bad.mote").status();
}

void expect_error(const Status& st, const std::string& fragment) {
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("bad.mote"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find(fragment), std::string::npos) << "message: " << st.message();
}

TEST(ModelLoader, LoadsWhatGraphBuilderWrites) {
  auto bytes = small_model_bytes();
  AlignedCopy copy(bytes);
  auto model = Model::from_buffer(copy.data(), copy.size(), "good.mote");
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  EXPECT_EQ((*model)->inputs().size(), 1u);
  EXPECT_EQ((*model)->outputs()[0].name, "y");
  EXPECT_EQ((*model)->metadata("labels"), "a,b,c,d");
  EXPECT_EQ((*model)->weight_bytes(), 16u);
  int c = (*model)->find_tensor("c");
  ASSERT_GE(c, 0);
  const float* data = static_cast<const float*>((*model)->tensor_data(c));
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % kWeightAlignment, 0u);
  EXPECT_EQ(data[3], 4.0f);
}

TEST(ModelLoader, TruncatedFileIsAnError) {
  auto bytes = small_model_bytes();
  for (size_t size : {size_t{0}, size_t{4}, size_t{16}, bytes.size() / 2, bytes.size() - 1}) {
    Status st = load_status(bytes, size);
    EXPECT_FALSE(st.ok()) << "size " << size;
    EXPECT_NE(st.message().find("bad.mote"), std::string::npos) << st.message();
  }
}

TEST(ModelLoader, WrongIdentifierIsAnError) {
  auto bytes = small_model_bytes();
  bytes[4] = 'X';
  expect_error(load_status(bytes, bytes.size()), "file identifier");
}

TEST(ModelLoader, BufferOffsetOutOfRangeIsAnError) {
  auto bytes = small_model_bytes();
  auto* model = fb::GetMutableModel(bytes.data());
  auto* buffer = model->mutable_buffers()->GetMutableObject(0);
  buffer->mutate_offset(1ull << 40);
  expect_error(load_status(bytes, bytes.size()), "outside the weight segment");
}

TEST(ModelLoader, SegmentPastEndOfFileIsAnError) {
  auto bytes = small_model_bytes();
  fb::GetMutableModel(bytes.data())->mutate_segment_size(~uint64_t{0} - 63);
  expect_error(load_status(bytes, bytes.size()), "past the end of the file");
}

// Found by fuzzing: an empty weight segment once skipped the buffer checks,
// so a buffer could point anywhere past the file.
TEST(ModelLoader, BufferInEmptySegmentIsAnError) {
  auto bytes = small_model_bytes();
  fb::GetMutableModel(bytes.data())->mutate_segment_size(0);
  expect_error(load_status(bytes, bytes.size()), "outside the weight segment of 0 bytes");
}

// An empty segment's offset is still added to the file's address.
TEST(ModelLoader, EmptySegmentPastEndOfFileIsAnError) {
  auto bytes = small_model_bytes();
  auto* model = fb::GetMutableModel(bytes.data());
  model->mutate_segment_size(0);
  model->mutate_segment_offset(uint64_t{1} << 63);
  expect_error(load_status(bytes, bytes.size()), "past the end of the file");
}

// Found by fuzzing: flatc 2.0's verifier checks a vector's length for 4-byte
// alignment but not its 8-byte elements; this file's tensor shape sits at 4
// mod 8, and reading it was undefined behaviour.
TEST(ModelLoader, MisalignedVectorIsAnError) {
  const std::string path = std::string(MOTE_FUZZ_REGRESSIONS) + "/optimizer_state/shape_vector_misaligned.optimizer";
  auto model = Model::load(path);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("field 'shape' at byte"), std::string::npos) << model.status().message();
  EXPECT_NE(model.status().message().find("is not 8-byte aligned"), std::string::npos) << model.status().message();
}

TEST(ModelLoader, TensorIndexOutOfRangeIsAnError) {
  auto bytes = small_model_bytes();
  auto* op = fb::GetMutableModel(bytes.data())->mutable_graph()->mutable_ops()->GetMutableObject(1);
  op->mutable_inputs()->Mutate(0, 999);
  Status st = load_status(bytes, bytes.size());
  expect_error(st, "op #1 (Relu 'relu'): input 0 refers to tensor 999");
}

TEST(ModelLoader, ShapeOverflowIsAnError) {
  auto bytes = small_model_bytes();
  auto* tensors = fb::GetMutableModel(bytes.data())->mutable_graph()->mutable_tensors();
  auto* x = tensors->GetMutableObject(0);
  x->mutable_shape()->Mutate(0, int64_t{1} << 40);
  x->mutable_shape()->Mutate(1, int64_t{1} << 40);
  expect_error(load_status(bytes, bytes.size()), "tensor 0 'x': shape 1099511627776x1099511627776 overflows");
}

TEST(ModelLoader, DtypeNotMatchingBufferSizeIsAnError) {
  auto bytes = small_model_bytes();
  auto* c = fb::GetMutableModel(bytes.data())->mutable_graph()->mutable_tensors()->GetMutableObject(1);
  c->mutate_dtype(fb::DType::I64);
  expect_error(load_status(bytes, bytes.size()), "tensor 1 'c': i64 4 needs 32 bytes but its buffer holds 16");
}

TEST(ModelLoader, UnknownDtypeIsAnError) {
  auto bytes = small_model_bytes();
  auto* c = fb::GetMutableModel(bytes.data())->mutable_graph()->mutable_tensors()->GetMutableObject(1);
  c->mutate_dtype(static_cast<fb::DType>(99));
  expect_error(load_status(bytes, bytes.size()), "unknown dtype 99");
}

TEST(ModelLoader, UnknownOpTypeIsAnError) {
  auto bytes = small_model_bytes();
  auto* op = fb::GetMutableModel(bytes.data())->mutable_graph()->mutable_ops()->GetMutableObject(0);
  op->mutate_type(static_cast<fb::OpType>(4000));
  expect_error(load_status(bytes, bytes.size()), "op #0");
}

TEST(ModelLoader, OpsOutOfOrderIsAnError) {
  auto bytes = small_model_bytes();
  auto* op = fb::GetMutableModel(bytes.data())->mutable_graph()->mutable_ops()->GetMutableObject(0);
  op->mutable_inputs()->Mutate(0, 3);  // Add reads Relu's output, produced later
  expect_error(load_status(bytes, bytes.size()), "not produced by any earlier op");
}

TEST(ModelLoader, MissingFileNamesThePath) {
  auto model = Model::load("/nonexistent/dir/model.mote");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("/nonexistent/dir/model.mote"), std::string::npos);
}

TEST(ModelLoader, UnalignedBufferIsRejected) {
  auto bytes = small_model_bytes();
  std::vector<uint8_t> shifted(bytes.size() + 65);
  uint8_t* base = shifted.data();
  while (reinterpret_cast<uintptr_t>(base) % 64 != 1) ++base;
  std::copy(bytes.begin(), bytes.end(), base);
  EXPECT_FALSE(Model::from_buffer(base, bytes.size()).ok());
}

// Random corruption of every kind: each load either succeeds or fails with a
// message; under AddressSanitizer this also proves no out-of-bounds read.
TEST(ModelLoader, RandomCorruptionNeverCrashes) {
  const auto original = small_model_bytes();
  std::mt19937 rng(1234);
  int rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    auto bytes = original;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
    AlignedCopy copy(bytes);
    auto model = Model::from_buffer(copy.data(), copy.size(), "fuzz.mote");
    if (!model.ok()) {
      ++rejected;
      EXPECT_FALSE(model.status().message().empty());
      continue;
    }
    // A model that passed verification must also plan or fail cleanly.
    auto session = Session::create(*model, {.threads = 1});
    ASSERT_TRUE(session.ok());
    (void)(*session)->prepare();
  }
  EXPECT_GT(rejected, 0);
}

TEST(ModelLoader, FileRoundTripThroughMmap) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {2});
  b.mark_output(b.add_op(fb::OpType::Relu, {x})[0], "y");
  test::ScopedTempDir dir("loader");
  std::string path = dir.file("roundtrip.mote");
  ASSERT_TRUE(b.save(path).ok());
  auto model = Model::load(path);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  EXPECT_EQ((*model)->source(), path);
  EXPECT_EQ((*model)->graph().ops.size(), 1u);
}

}  // namespace
}  // namespace mote
