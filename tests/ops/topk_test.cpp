#include <limits>

#include "tests/support/op_test_util.hpp"

namespace mote::test {
namespace {

fb::OpT topk_op(int64_t axis = -1, bool largest = true, bool sorted = true) {
  fb::TopKAttrsT a;
  a.axis = axis;
  a.largest = largest;
  a.sorted = sorted;
  return make_op(fb::OpType::TopK, a);
}

Tensor k_input(int64_t k) { return Tensor::from_vector<int64_t>({1}, {k}); }

TEST(TopKOps, CpuMatchesReference) {
  for (int64_t n : odd_sizes()) {
    for (bool largest : {true, false}) {
      for (int64_t k : {int64_t{1}, (n + 1) / 2, n}) {
        expect_cpu_matches_reference(topk_op(-1, largest), {random_tensor(DType::F32, {3, n}, 1), k_input(k)}, 0, 0);
        expect_cpu_matches_reference(topk_op(0, largest), {random_tensor(DType::F32, {n, 4}, 2), k_input(k)}, 0, 0);
        expect_cpu_matches_reference(topk_op(-2, largest, false), {random_tensor(DType::F32, {2, n, 3}, 3), k_input(k)},
                                     0, 0);
        // Integers from a small range: many ties, which go to the lower index.
        expect_cpu_matches_reference(topk_op(1, largest), {random_tensor(DType::I32, {2, n, 3}, 4, -3, 3), k_input(k)},
                                     0, 0);
        expect_cpu_matches_reference(topk_op(-1, largest), {random_tensor(DType::I64, {5, n}, 5, -3, 3), k_input(k)}, 0,
                                     0);
      }
    }
  }
  expect_cpu_matches_reference(topk_op(), {random_tensor(DType::F32, {2, 5000}, 6), k_input(10)}, 0, 0);
  expect_cpu_matches_reference(topk_op(), {random_tensor(DType::F32, {2, 7}, 7), k_input(0)}, 0, 0);
}

TEST(TopKOps, EmptyInputIsFine) {
  expect_cpu_matches_reference(topk_op(), {Tensor::zeros(DType::F32, {0, 5}), k_input(2)});
  expect_cpu_matches_reference(topk_op(0), {Tensor::zeros(DType::I32, {0, 5}), k_input(0)});
}

TEST(TopKOps, NaNIsAboveEveryNumber) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = Tensor::from_vector<float>({5}, {1.0f, nan, 3.0f, nan, -2.0f});
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    auto top = run_op(topk_op(), {x, k_input(3)}, impl);
    ASSERT_TRUE(top.ok()) << top.status().to_string();
    expect_tensors_near((*top)[0], Tensor::from_vector<float>({3}, {nan, nan, 3.0f}), 0, 0, impl_name(impl));
    expect_tensors_near((*top)[1], Tensor::from_vector<int64_t>({3}, {1, 3, 2}), 0, 0, impl_name(impl));
    auto bottom = run_op(topk_op(-1, false), {x, k_input(4)}, impl);
    ASSERT_TRUE(bottom.ok()) << bottom.status().to_string();
    expect_tensors_near((*bottom)[0], Tensor::from_vector<float>({4}, {-2.0f, 1.0f, 3.0f, nan}), 0, 0, impl_name(impl));
    expect_tensors_near((*bottom)[1], Tensor::from_vector<int64_t>({4}, {4, 0, 2, 1}), 0, 0, impl_name(impl));
  }
}

void expect_reference(const fb::OpT& op, const Inputs& inputs, const Tensor& values, const Tensor& indices) {
  auto y = run_op(op, inputs, Impl::kReference);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  expect_tensors_near((*y)[0], values, 0, 0, "values");
  expect_tensors_near((*y)[1], indices, 0, 0, "indices");
}

// x = np.array([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]], np.float32)
// largest:  i = np.argsort(-x, axis, kind='stable')[:k]; smallest: np.argsort(x, ...)
// values = np.take_along_axis(x, i, axis)
TEST(TopKOps, ReferenceMatchesNumpy) {
  Tensor x = Tensor::from_vector<float>({2, 5}, {3, 1, 4, 1, 5, 9, 2, 6, 5, 3});
  expect_reference(topk_op(), {x, k_input(3)}, Tensor::from_vector<float>({2, 3}, {5, 4, 3, 9, 6, 5}),
                   Tensor::from_vector<int64_t>({2, 3}, {4, 2, 0, 0, 2, 3}));
  expect_reference(topk_op(1, false), {x, k_input(2)}, Tensor::from_vector<float>({2, 2}, {1, 1, 2, 3}),
                   Tensor::from_vector<int64_t>({2, 2}, {1, 3, 1, 4}));
  expect_reference(topk_op(0), {x, k_input(1)}, Tensor::from_vector<float>({1, 5}, {9, 2, 6, 5, 5}),
                   Tensor::from_vector<int64_t>({1, 5}, {1, 1, 1, 1, 0}));
  // xi = np.array([[[5, -2], [5, 7], [-3, 7]]]); axis 1, k 2, largest
  Tensor xi = Tensor::from_vector<int64_t>({1, 3, 2}, {5, -2, 5, 7, -3, 7});
  expect_reference(topk_op(1), {xi, k_input(2)}, Tensor::from_vector<int64_t>({1, 2, 2}, {5, 7, 5, 7}),
                   Tensor::from_vector<int64_t>({1, 2, 2}, {0, 1, 1, 2}));
}

TEST(TopKOps, ShapeErrors) {
  Tensor x = random_tensor(DType::F32, {2, 5}, 1);
  auto expect_invalid = [](const Result<std::vector<Tensor>>& r, const char* what) {
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidModel) << what << ": " << r.status().to_string();
  };
  expect_invalid(run_op(topk_op(), {x, k_input(6)}, Impl::kCpu), "K larger than the axis");
  expect_invalid(run_op(topk_op(), {x, k_input(-1)}, Impl::kCpu), "negative K");
  expect_invalid(run_op(topk_op(2), {x, k_input(1)}, Impl::kCpu), "axis out of range");
  expect_invalid(run_op(topk_op(-3), {x, k_input(1)}, Impl::kCpu), "negative axis out of range");
  expect_invalid(run_op(topk_op(), {x, Tensor::from_vector<int64_t>({2}, {1, 2})}, Impl::kCpu), "two K values");
  expect_invalid(run_op(topk_op(), {x, Tensor::from_vector<float>({1}, {1})}, Impl::kCpu), "float K");
  expect_invalid(run_op(topk_op(), {x, std::nullopt}, Impl::kCpu), "missing K");
  expect_invalid(run_op(topk_op(), {random_tensor(DType::Bool, {2, 5}, 1), k_input(1)}, Impl::kCpu), "bool X");
  expect_invalid(run_op(topk_op(0), {Tensor::from_vector<float>({}, {1}), k_input(1)}, Impl::kCpu), "scalar X");
}

}  // namespace
}  // namespace mote::test
