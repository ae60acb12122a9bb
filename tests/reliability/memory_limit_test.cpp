// SessionOptions::max_arena_bytes: a plan larger than the limit is refused
// with kOutOfMemory and a message naming the bytes, before anything is
// allocated, and the session keeps working for shapes that fit.
#include <gtest/gtest.h>

#include "mote/mote.hpp"
#include "tests/support/model_util.hpp"
#if MOTE_HAS_VULKAN
#include "tests/vulkan/vk_test_util.hpp"
#endif

namespace mote::test {
namespace {

// y = relu(x + x), x: [N, 4], N dynamic. Plan: Add's output in the arena, y an output.
std::shared_ptr<const Model> add_relu_model() {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {-1, 4});
  int doubled = b.add_op(fb::OpType::Add, {x, x}, 1, "double")[0];
  b.mark_output(b.add_op(fb::OpType::Relu, {doubled}, 1, "relu")[0], "y");
  return load_built(b, "add_relu.mote");
}

Tensor ones(int64_t rows) {
  Tensor t = Tensor::zeros(DType::F32, {rows, 4});
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = 1.0f;
  return t;
}

TEST(MemoryLimit, RefusesAPlanOverTheLimitAndRecovers) {
  SessionOptions options;
  options.threads = 1;
  options.max_arena_bytes = 1 << 20;
  auto session = Session::create(add_relu_model(), options);
  ASSERT_TRUE(session.ok());

  auto small = (*session)->run({ones(1000)});
  ASSERT_TRUE(small.ok()) << small.status().to_string();
  EXPECT_EQ((*small)[0].data<float>()[0], 2.0f);

  // 100000 x 4 floats: 1,600,000 bytes for Add's output and as many for y.
  auto big = (*session)->run({ones(100000)});
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), StatusCode::kOutOfMemory);
  const std::string& message = big.status().message();
  EXPECT_NE(message.find("add_relu.mote"), std::string::npos) << message;
  EXPECT_NE(message.find("3200000 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("100000x4"), std::string::npos) << message;
  EXPECT_NE(message.find("max_arena_bytes = 1048576"), std::string::npos) << message;

  auto again = (*session)->run({ones(3)});
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_EQ((*again)[0].data<float>()[1], 2.0f);
}

TEST(MemoryLimit, AnAbsurdShapeIsRefusedWithoutAllocating) {
  SessionOptions options;
  options.max_arena_bytes = uint64_t{1} << 30;
  auto session = Session::create(add_relu_model(), options);
  ASSERT_TRUE(session.ok());
  // 2^40 rows: 16 TiB per tensor. Without the limit this is an allocation
  // failure at best; with it, an error before any allocation.
  Status st = (*session)->prepare({{"x", Shape{int64_t{1} << 40, 4}}});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kOutOfMemory);
  EXPECT_NE(st.message().find("35184372088832 bytes"), std::string::npos) << st.message();
}

TEST(MemoryLimit, CountsTensorsShapedWhileRunning) {
  // Reshape to a shape given as an input: its output and Relu's are sized
  // only while running.
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {-1});
  int shape = b.add_input("shape", DType::I64, {2});
  int r = b.add_op(fb::OpType::Reshape, {x, shape})[0];
  b.mark_output(b.add_op(fb::OpType::Relu, {r})[0], "y");
  SessionOptions options;
  options.threads = 1;
  options.max_arena_bytes = 1000;
  auto session = Session::create(load_built(b, "reshape.mote"), options);
  ASSERT_TRUE(session.ok());

  auto run = [&](int64_t n) {
    Tensor x = Tensor::zeros(DType::F32, {n});
    return (*session)->run(std::vector<Tensor>{x, Tensor::from_vector<int64_t>({2}, {2, n / 2})});
  };
  auto fits = run(100);  // 400 bytes each for Reshape's and Relu's outputs
  ASSERT_TRUE(fits.ok()) << fits.status().to_string();
  EXPECT_EQ((*fits)[0].shape(), (Shape{2, 50}));

  auto over = run(200);  // 800 + 800
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), StatusCode::kOutOfMemory);
  EXPECT_NE(over.status().message().find("shaped while running"), std::string::npos) << over.status().message();
  EXPECT_NE(over.status().message().find("Relu"), std::string::npos) << over.status().message();

  // The count starts again with every run.
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(run(100).ok());
}

#if MOTE_HAS_VULKAN
TEST(MemoryLimit, BoundsTheDeviceArenaToo) {
  MOTE_REQUIRE_VULKAN();
  // Add and Relu on the GPU: the host holds only y (32 KiB), the device
  // holds Add's output and y (64 KiB), both alive while Relu runs (x shares
  // y's bytes: no mapped_input keeps it for the whole run).
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {1024, 8});
  int c = b.add_constant("c", random_tensor(DType::F32, {8}, 3));
  int s = b.add_op(fb::OpType::Add, {x, c})[0];
  b.mark_output(b.add_op(fb::OpType::Relu, {s})[0], "y");
  auto model = load_built(b, "gpu_chain.mote");
  SessionOptions options;
  options.backend = Backend::kVulkan;
  options.min_gpu_island_elements = 0;
  const uint64_t needed = 64 * 1024;
  options.max_arena_bytes = needed - 16 * 1024;
  auto session = Session::create(model, options);
  ASSERT_TRUE(session.ok());
  Status st = (*session)->prepare();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kOutOfMemory);
  EXPECT_NE(st.message().find("device arena needs " + std::to_string(needed) + " bytes"), std::string::npos)
      << st.message();

  options.max_arena_bytes = needed;
  auto roomy = Session::create(model, options);
  ASSERT_TRUE(roomy.ok());
  Tensor input = random_tensor(DType::F32, {1024, 8}, 4);
  auto out = (*roomy)->run({input});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*roomy)->plan_stats().ops_gpu, 2);
}
#endif

}  // namespace
}  // namespace mote::test
