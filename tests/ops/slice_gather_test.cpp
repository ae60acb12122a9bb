#include <limits>

#include "runtime/cpu/thread_pool.hpp"

#include "tests/ops/data_movement_test_util.hpp"

namespace mote::test {
namespace {

fb::OpT gather_op(int64_t axis) {
  fb::AxisAttrsT a;
  a.axis = axis;
  return make_op(fb::OpType::Gather, a);
}

Tensor iota_i64(Shape shape) {
  Tensor t = Tensor::zeros(DType::I64, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<int64_t>()[i] = i;
  return t;
}

constexpr int64_t kBig = std::numeric_limits<int64_t>::max();
constexpr int64_t kSmall = std::numeric_limits<int64_t>::min();

TEST(SliceGatherOps, SliceCpuMatchesReference) {
  const fb::OpT op = make_op(fb::OpType::Slice);
  uint32_t seed = 1;
  for (int64_t n : odd_sizes()) {
    for (DType dtype : copy_dtypes()) {
      Tensor x = distinct_tensor(dtype, {4, n, 6}, seed++);
      expect_cpu_matches_reference_exactly(op, {x, i64s({1, 0}), i64s({3, n}), std::nullopt, std::nullopt});
      expect_cpu_matches_reference_exactly(op, {x, i64s({-1}), i64s({kSmall}), i64s({1}), i64s({-1})});
      expect_cpu_matches_reference_exactly(op, {x, i64s({n / 2, 5}), i64s({kBig, -7}), i64s({-2, 2}), i64s({2, -2})});
      expect_cpu_matches_reference_exactly(op, {x, i64s({-100}), i64s({100}), i64s({-1}), i64s({4})});
      expect_cpu_matches_reference_exactly(op, {x, i64s({3, 0}), i64s({1, 6}), i64s({0, 2}), i64s({kSmall, kBig})});
      expect_cpu_matches_reference_exactly(op, {x, i32s({2}), i32s({2}), i32s({0}), std::nullopt});  // empty
    }
  }
  expect_cpu_matches_reference_exactly(op, {distinct_tensor(DType::F32, {300, 400}, 9), i64s({10, 3}),
                                            i64s({290, 390}), std::nullopt, i64s({1, 1})});
}

TEST(SliceGatherOps, GatherCpuMatchesReference) {
  uint32_t seed = 100;
  for (int64_t n : odd_sizes()) {
    for (DType dtype : copy_dtypes()) {
      Tensor x = distinct_tensor(dtype, {3, n, 4}, seed++);
      expect_cpu_matches_reference_exactly(gather_op(0), {x, i64s({2, -3, 1, 1})});
      expect_cpu_matches_reference_exactly(gather_op(1), {x, Tensor::from_vector<int64_t>({2, 2}, {0, n - 1, -n, 0})});
      expect_cpu_matches_reference_exactly(gather_op(-1), {x, Tensor::from_vector<int32_t>({}, {-1})});
      expect_cpu_matches_reference_exactly(gather_op(2), {x, Tensor::zeros(DType::I64, {0})});
    }
  }
  // An embedding lookup, large enough to be split over threads.
  Tensor tokens = Tensor::zeros(DType::I64, {8, 64});
  for (int64_t i = 0; i < tokens.numel(); ++i) tokens.data<int64_t>()[i] = (i * 37) % 1000;
  expect_cpu_matches_reference_exactly(gather_op(0), {distinct_tensor(DType::F32, {1000, 256}, 7), tokens});
}

// numpy: np.arange(20).reshape(4, 5)[3:0:-1, -1:-6:-2] and x[-100:100, 1:1000:3]
TEST(SliceGatherOps, SliceReferenceMatchesNumpy) {
  const fb::OpT op = make_op(fb::OpType::Slice);
  auto y = run_reference(op, {iota_i64({4, 5}), i64s({3, -1}), i64s({0, -6}), std::nullopt, i64s({-1, -2})});
  ASSERT_EQ(y.size(), 1u);
  expect_tensors_near(y[0], Tensor::from_vector<int64_t>({3, 3}, {19, 17, 15, 14, 12, 10, 9, 7, 5}), 0, 0);
  auto z = run_reference(op, {iota_i64({4, 5}), i64s({1, -100}), i64s({1000, 100}), i64s({-1, 0}), i64s({3, 1})});
  ASSERT_EQ(z.size(), 1u);
  expect_tensors_near(z[0], Tensor::from_vector<int64_t>({4, 2}, {1, 4, 6, 9, 11, 14, 16, 19}), 0, 0);
}

// numpy: np.take(x, [[0, 2], [1, 0]], axis=0), np.take(x, [2, 0, 1], axis=1)
// and np.take(x, 1, axis=1) for x = [[1, 2], [3, 4], [5, 6]]
TEST(SliceGatherOps, GatherReferenceMatchesNumpy) {
  Tensor x = Tensor::from_vector<int64_t>({3, 2}, {1, 2, 3, 4, 5, 6});
  auto a = run_reference(gather_op(0), {x, Tensor::from_vector<int64_t>({2, 2}, {0, -1, 1, 0})});
  ASSERT_EQ(a.size(), 1u);
  expect_tensors_near(a[0], Tensor::from_vector<int64_t>({2, 2, 2}, {1, 2, 5, 6, 3, 4, 1, 2}), 0, 0);
  auto b = run_reference(gather_op(1), {x, i32s({-1, 0, 1})});
  ASSERT_EQ(b.size(), 1u);
  expect_tensors_near(b[0], Tensor::from_vector<int64_t>({3, 3}, {2, 1, 2, 4, 3, 4, 6, 5, 6}), 0, 0);
  auto c = run_reference(gather_op(1), {x, Tensor::from_vector<int64_t>({}, {1})});
  ASSERT_EQ(c.size(), 1u);
  expect_tensors_near(c[0], Tensor::from_vector<int64_t>({3}, {2, 4, 6}), 0, 0);
}

TEST(SliceGatherOps, ShapeErrorsAreReported) {
  const fb::OpT slice = make_op(fb::OpType::Slice);
  Tensor x = iota_i64({4, 5});
  expect_rejected(slice, {x, i64s({0}), i64s({1}), i64s({0}), i64s({0})}, "'steps'[0] is 0");
  expect_rejected(slice, {x, i64s({0, 0}), i64s({1, 1}), i64s({1, -1}), std::nullopt}, "repeats");
  expect_rejected(slice, {x, i64s({0, 0}), i64s({1})}, "different lengths");
  expect_rejected(slice, {x, i64s({0}), i64s({1}), i64s({2})}, "out of range");
  expect_rejected(slice, {x, Tensor::from_vector<float>({1}, {0}), i64s({1})}, "must be i64 or i32");

  expect_rejected(gather_op(2), {x, i64s({0})}, "out of range");
  expect_rejected(gather_op(0), {x, Tensor::from_vector<float>({1}, {0})}, "must be i64 or i32");
  expect_rejected(gather_op(0), {x, i64s({4})}, "out of range for a dimension of 4");
  expect_rejected(gather_op(1), {x, i64s({-6})}, "out of range for a dimension of 5");
}

// Indices only known at run time are checked by the kernels.
TEST(SliceGatherOps, GatherKernelsRejectIndicesOutOfRange) {
  fb::OpT op = gather_op(0);
  Tensor data = iota_i64({4, 5});
  Tensor indices = i64s({1, 9});
  Tensor out = Tensor::zeros(DType::I64, {2, 5});
  ThreadPool pool(1);
  for (const CpuKernel* kernel : {find_reference_kernel(fb::OpType::Gather), find_cpu_kernel(fb::OpType::Gather)}) {
    KernelContext ctx{op, {&data, &indices}, {&out}, &pool, nullptr};
    Status status = kernel->run(ctx);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find("out of range"), std::string::npos) << status.to_string();
  }
}

}  // namespace
}  // namespace mote::test
