#include "tests/support/op_test_util.hpp"

namespace mote::test {
namespace {

fb::OpT cumsum_op(bool exclusive = false, bool reverse = false) {
  fb::CumSumAttrsT a;
  a.exclusive = exclusive;
  a.reverse = reverse;
  return make_op(fb::OpType::CumSum, a);
}

Tensor axis_input(int64_t axis) { return Tensor::from_vector<int64_t>({}, {axis}); }

TEST(CumSumOps, CpuMatchesReference) {
  for (int64_t n : odd_sizes()) {
    for (bool exclusive : {false, true}) {
      for (bool reverse : {false, true}) {
        const fb::OpT op = cumsum_op(exclusive, reverse);
        for (int64_t axis : {0, 1, 2, -1, -3}) {
          expect_cpu_matches_reference(op, {random_tensor(DType::F32, {3, n, 5}, 1), axis_input(axis)}, 1e-5, 1e-5);
          expect_cpu_matches_reference(op, {random_tensor(DType::I32, {3, n, 5}, 2, -100, 100), axis_input(axis)}, 0,
                                       0);
          expect_cpu_matches_reference(op, {random_tensor(DType::I64, {3, 5, n}, 3, -100, 100), axis_input(axis)}, 0,
                                       0);
        }
        expect_cpu_matches_reference(op, {random_tensor(DType::F32, {n}, 4), axis_input(0)}, 1e-5, 1e-5);
      }
    }
  }
  // A long scan, and more columns than one strided block; an i32 axis input.
  expect_cpu_matches_reference(cumsum_op(), {random_tensor(DType::F32, {2, 5000}, 5), axis_input(1)}, 1e-5, 1e-4);
  expect_cpu_matches_reference(cumsum_op(true, true),
                               {random_tensor(DType::F32, {7, 1100}, 6), Tensor::from_vector<int32_t>({1}, {0})}, 1e-5,
                               1e-5);
}

TEST(CumSumOps, EmptyInputIsFine) {
  expect_cpu_matches_reference(cumsum_op(), {Tensor::zeros(DType::F32, {0, 3}), axis_input(1)});
  expect_cpu_matches_reference(cumsum_op(true, true), {Tensor::zeros(DType::I64, {4, 0}), axis_input(1)});
  expect_cpu_matches_reference(cumsum_op(), {Tensor::zeros(DType::F32, {2, 0, 3}), axis_input(0)});
}

void expect_reference(const fb::OpT& op, const Inputs& inputs, const Tensor& expected) {
  auto y = run_op(op, inputs, Impl::kReference);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  expect_tensors_near((*y)[0], expected, 0, 0);
}

TEST(CumSumOps, ReferenceMatchesNumpy) {
  Tensor x = Tensor::from_vector<float>({5}, {1, 2, 3, 4, 5});
  // np.cumsum(x)
  expect_reference(cumsum_op(), {x, axis_input(0)}, Tensor::from_vector<float>({5}, {1, 3, 6, 10, 15}));
  // np.cumsum(x) - x
  expect_reference(cumsum_op(true), {x, axis_input(0)}, Tensor::from_vector<float>({5}, {0, 1, 3, 6, 10}));
  // np.cumsum(x[::-1])[::-1]
  expect_reference(cumsum_op(false, true), {x, axis_input(-1)}, Tensor::from_vector<float>({5}, {15, 14, 12, 9, 5}));
  // (np.cumsum(x[::-1]) - x[::-1])[::-1]
  expect_reference(cumsum_op(true, true), {x, axis_input(0)}, Tensor::from_vector<float>({5}, {14, 12, 9, 5, 0}));
  Tensor y = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  // np.cumsum(y, 0), np.cumsum(y, -1)
  expect_reference(cumsum_op(), {y, axis_input(0)}, Tensor::from_vector<float>({2, 3}, {1, 2, 3, 5, 7, 9}));
  expect_reference(cumsum_op(), {y, axis_input(-1)}, Tensor::from_vector<float>({2, 3}, {1, 3, 6, 4, 9, 15}));
  // z = np.array([[3, -1], [2, 7], [-5, 4]], np.int32); np.cumsum(z[::-1], 0)[::-1]
  Tensor z = Tensor::from_vector<int32_t>({3, 2}, {3, -1, 2, 7, -5, 4});
  expect_reference(cumsum_op(false, true), {z, Tensor::from_vector<int32_t>({1}, {0})},
                   Tensor::from_vector<int32_t>({3, 2}, {0, 10, -3, 11, -5, 4}));
}

TEST(CumSumOps, ShapeErrors) {
  Tensor x = random_tensor(DType::F32, {2, 3}, 1);
  auto expect_invalid = [](const Result<std::vector<Tensor>>& r, const char* what) {
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidModel) << what << ": " << r.status().to_string();
  };
  expect_invalid(run_op(cumsum_op(), {x, axis_input(2)}, Impl::kCpu), "axis out of range");
  expect_invalid(run_op(cumsum_op(), {x, axis_input(-3)}, Impl::kCpu), "negative axis out of range");
  expect_invalid(run_op(cumsum_op(), {x, Tensor::from_vector<int64_t>({2}, {0, 1})}, Impl::kCpu), "two axes");
  expect_invalid(run_op(cumsum_op(), {x, Tensor::from_vector<float>({}, {0})}, Impl::kCpu), "float axis");
  expect_invalid(run_op(cumsum_op(), {x, std::nullopt}, Impl::kCpu), "missing axis");
  expect_invalid(run_op(cumsum_op(), {random_tensor(DType::Bool, {2, 3}, 1), axis_input(0)}, Impl::kCpu), "bool x");
  expect_invalid(run_op(cumsum_op(), {Tensor::from_vector<float>({}, {1}), axis_input(0)}, Impl::kCpu), "scalar x");
}

}  // namespace
}  // namespace mote::test
