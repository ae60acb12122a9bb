#include <cmath>
#include <limits>

#include "tests/support/op_test_util.hpp"

namespace mote::test {
namespace {

fb::OpT reduce_op(fb::OpType type, bool keepdims = true, bool noop_with_empty_axes = false) {
  fb::ReduceAttrsT a;
  a.keepdims = keepdims;
  a.noop_with_empty_axes = noop_with_empty_axes;
  return make_op(type, a);
}

fb::OpT arg_op(fb::OpType type, int64_t axis, bool keepdims = true, bool select_last_index = false) {
  fb::ArgReduceAttrsT a;
  a.axis = axis;
  a.keepdims = keepdims;
  a.select_last_index = select_last_index;
  return make_op(type, a);
}

Tensor axes(const std::vector<int64_t>& values) {
  return Tensor::from_vector<int64_t>({static_cast<int64_t>(values.size())}, values);
}

const fb::OpType kFloatReductions[] = {fb::OpType::ReduceMean, fb::OpType::ReduceSum,  fb::OpType::ReduceMax,
                                       fb::OpType::ReduceMin,  fb::OpType::ReduceProd, fb::OpType::ReduceL2};
const fb::OpType kIntReductions[] = {fb::OpType::ReduceSum, fb::OpType::ReduceMax, fb::OpType::ReduceMin,
                                     fb::OpType::ReduceProd};

// Products of many values in [-1, 1) underflow; keep factors near 1.
Tensor reduce_input(fb::OpType type, Shape shape, uint32_t seed) {
  if (type == fb::OpType::ReduceProd) return random_tensor(DType::F32, std::move(shape), seed, 0.8, 1.25);
  return random_tensor(DType::F32, std::move(shape), seed);
}

TEST(ReduceOps, CpuMatchesReferenceOverAxisSets) {
  const std::vector<std::vector<int64_t>> axis_sets = {{-1}, {0}, {1}, {0, 2}, {2, 0}, {1, 2}, {0, 1, 2}, {-2}};
  for (fb::OpType type : kFloatReductions) {
    for (int64_t n : odd_sizes()) {
      for (const auto& set : axis_sets) {
        for (bool keepdims : {true, false}) {
          expect_cpu_matches_reference(reduce_op(type, keepdims), {reduce_input(type, {3, n, 5}, 1), axes(set)}, 1e-5,
                                       1e-5);
        }
      }
      // No axes input: everything is reduced.
      expect_cpu_matches_reference(reduce_op(type), {reduce_input(type, {n, 2}, 2), std::nullopt}, 1e-5, 1e-5);
      expect_cpu_matches_reference(reduce_op(type, false), {reduce_input(type, {n}, 3), std::nullopt}, 1e-5, 1e-5);
    }
  }
}

TEST(ReduceOps, CpuMatchesReferenceOnLongAxes) {
  for (fb::OpType type : kFloatReductions) {
    // Longer than one SIMD sum block, and more rows than one strided row block.
    expect_cpu_matches_reference(reduce_op(type), {reduce_input(type, {2, 9001}, 4), axes({1})}, 1e-5, 1e-5);
    expect_cpu_matches_reference(reduce_op(type), {reduce_input(type, {1000, 3}, 5), axes({0})}, 1e-5, 1e-5);
    // More columns than one strided column block, reduced over two separate groups.
    expect_cpu_matches_reference(reduce_op(type, false), {reduce_input(type, {3, 7, 2, 600}, 6), axes({0, 2})}, 1e-5,
                                 1e-5);
    // Size-1 axes among the reduced ones.
    expect_cpu_matches_reference(reduce_op(type), {reduce_input(type, {1, 13, 1, 4}, 7), axes({0, 1, 2})}, 1e-5, 1e-5);
    expect_cpu_matches_reference(reduce_op(type), {reduce_input(type, {4, 1, 3}, 8), axes({1})}, 1e-5, 1e-5);
  }
}

TEST(ReduceOps, IntegerCpuMatchesReference) {
  for (fb::OpType type : kIntReductions) {
    for (DType dtype : {DType::I32, DType::I64}) {
      for (int64_t n : odd_sizes()) {
        double range = type == fb::OpType::ReduceProd ? 3 : 100;
        Tensor x = random_tensor(dtype, {3, n, 5}, 9, -range, range);
        expect_cpu_matches_reference(reduce_op(type), {x, axes({1})}, 0, 0);
        expect_cpu_matches_reference(reduce_op(type, false), {x, axes({-1})}, 0, 0);
        expect_cpu_matches_reference(reduce_op(type), {x, axes({0, 2})}, 0, 0);
        expect_cpu_matches_reference(reduce_op(type, false), {x, std::nullopt}, 0, 0);
      }
    }
  }
}

TEST(ReduceOps, BoolMaxIsAnyAndMinIsAll) {
  for (fb::OpType type : {fb::OpType::ReduceMax, fb::OpType::ReduceMin}) {
    for (int64_t n : odd_sizes()) {
      Tensor x = random_tensor(DType::Bool, {3, n, 5}, 15);
      expect_cpu_matches_reference(reduce_op(type), {x, axes({1})}, 0, 0);
      expect_cpu_matches_reference(reduce_op(type, false), {x, axes({0, 2})}, 0, 0);
      expect_cpu_matches_reference(reduce_op(type, false), {x, std::nullopt}, 0, 0);
    }
  }
  // b = np.array([[1, 0, 0], [0, 0, 0]], bool): b.any(1) = [1, 0], b.all(1) = [0, 0],
  // b.any(0) = [1, 0, 0], b.all(0) = [0, 0, 0]
  Tensor b = Tensor::from_vector<bool>({2, 3}, {true, false, false, false, false, false});
  auto check = [&](fb::OpType type, int64_t axis, const Tensor& expected) {
    auto y = run_op(reduce_op(type, false), {b, axes({axis})}, Impl::kReference);
    ASSERT_TRUE(y.ok()) << y.status().to_string();
    expect_tensors_near((*y)[0], expected, 0, 0);
  };
  check(fb::OpType::ReduceMax, 1, Tensor::from_vector<bool>({2}, {true, false}));
  check(fb::OpType::ReduceMin, 1, Tensor::from_vector<bool>({2}, {false, false}));
  check(fb::OpType::ReduceMax, 0, Tensor::from_vector<bool>({3}, {true, false, false}));
  check(fb::OpType::ReduceMin, 0, Tensor::from_vector<bool>({3}, {false, false, false}));
  // Over nothing: any() is false, all() is true.
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    auto any = run_op(reduce_op(fb::OpType::ReduceMax, false), {Tensor::zeros(DType::Bool, {0}), std::nullopt}, impl);
    auto all = run_op(reduce_op(fb::OpType::ReduceMin, false), {Tensor::zeros(DType::Bool, {0}), std::nullopt}, impl);
    ASSERT_TRUE(any.ok() && all.ok());
    expect_tensors_near((*any)[0], Tensor::from_vector<bool>({}, {false}), 0, 0, impl_name(impl));
    expect_tensors_near((*all)[0], Tensor::from_vector<bool>({}, {true}), 0, 0, impl_name(impl));
  }
}

TEST(ReduceOps, EmptyAxesWithNoopIsIdentity) {
  for (fb::OpType type : kFloatReductions) {
    Tensor x = random_tensor(DType::F32, {2, 3}, 10);
    for (Impl impl : {Impl::kReference, Impl::kCpu}) {
      auto y = run_op(reduce_op(type, true, true), {x, axes({})}, impl);
      ASSERT_TRUE(y.ok()) << y.status().to_string();
      expect_tensors_near((*y)[0], x, 0, 0, impl_name(impl));
      auto z = run_op(reduce_op(type, false, true), {x, std::nullopt}, impl);
      ASSERT_TRUE(z.ok()) << z.status().to_string();
      expect_tensors_near((*z)[0], x, 0, 0, impl_name(impl));
    }
  }
}

// Reductions over an empty axis give the identity (numpy: sum 0, prod 1,
// mean NaN; ONNX-18: max -inf, min +inf, L2 0).
TEST(ReduceOps, EmptyInputGivesIdentity) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::pair<fb::OpType, float> cases[] = {{fb::OpType::ReduceSum, 0.0f}, {fb::OpType::ReduceProd, 1.0f},
                                                {fb::OpType::ReduceMax, -inf}, {fb::OpType::ReduceMin, inf},
                                                {fb::OpType::ReduceMean, nan}, {fb::OpType::ReduceL2, 0.0f}};
  for (const auto& [type, expected] : cases) {
    for (Impl impl : {Impl::kReference, Impl::kCpu}) {
      auto y = run_op(reduce_op(type, false), {Tensor::zeros(DType::F32, {2, 0}), axes({1})}, impl);
      ASSERT_TRUE(y.ok()) << y.status().to_string();
      expect_tensors_near((*y)[0], Tensor::from_vector<float>({2}, {expected, expected}), 0, 0, impl_name(impl));
    }
  }
}

TEST(ReduceOps, MaxAndMinPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> values(40, 1.0f);
  values[17] = nan;
  Tensor x = Tensor::from_vector<float>({40}, values);
  for (fb::OpType type : {fb::OpType::ReduceMax, fb::OpType::ReduceMin}) {
    for (Impl impl : {Impl::kReference, Impl::kCpu}) {
      auto y = run_op(reduce_op(type, false), {x, std::nullopt}, impl);
      ASSERT_TRUE(y.ok()) << y.status().to_string();
      EXPECT_TRUE(std::isnan((*y)[0].data<float>()[0])) << impl_name(impl);
    }
  }
  expect_cpu_matches_reference(reduce_op(fb::OpType::ReduceMax), {x.reshaped({8, 5}), axes({0})});
}

// x = (((np.arange(24) * 7) % 11 - 5) * 0.5).reshape(2, 3, 4).astype(np.float32)
Tensor numpy_case() {
  return Tensor::from_vector<float>({2, 3, 4},
                                    {-2.5f, 1.0f,  -1.0f, 2.5f, 0.5f,  -1.5f, 2.0f, 0.0f,  -2.0f, 1.5f,  -0.5f, -2.5f,
                                     1.0f,  -1.0f, 2.5f,  0.5f, -1.5f, 2.0f,  0.0f, -2.0f, 1.5f,  -0.5f, -2.5f, 1.0f});
}

void expect_reference(const fb::OpT& op, const Inputs& inputs, const Tensor& expected) {
  auto y = run_op(op, inputs, Impl::kReference);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  expect_tensors_near((*y)[0], expected, 1e-6, 1e-7);
}

TEST(ReduceOps, ReferenceMatchesNumpy) {
  Tensor x = numpy_case();
  // np.mean(x, axis=1, keepdims=True)
  expect_reference(reduce_op(fb::OpType::ReduceMean), {x, axes({1})},
                   Tensor::from_vector<float>({2, 1, 4}, {-1.3333333f, 0.33333333f, 0.16666667f, 0.0f, 0.33333333f,
                                                          0.16666667f, 0.0f, -0.16666667f}));
  // np.sum(x, axis=(0, 2))
  expect_reference(reduce_op(fb::OpType::ReduceSum, false), {x, axes({0, -1})},
                   Tensor::from_vector<float>({3}, {3.0f, -0.5f, -4.0f}));
  // np.max(x, axis=-1, keepdims=True)
  expect_reference(reduce_op(fb::OpType::ReduceMax), {x, axes({-1})},
                   Tensor::from_vector<float>({2, 3, 1}, {2.5f, 2.0f, 1.5f, 2.5f, 2.0f, 1.5f}));
  // np.min(x)
  expect_reference(reduce_op(fb::OpType::ReduceMin, false), {x, std::nullopt}, Tensor::from_vector<float>({}, {-2.5f}));
  // np.min(x, keepdims=True)
  expect_reference(reduce_op(fb::OpType::ReduceMin, true), {x, axes({})},
                   Tensor::from_vector<float>({1, 1, 1}, {-2.5f}));
  // np.prod(x, axis=1)
  expect_reference(reduce_op(fb::OpType::ReduceProd, false), {x, axes({1})},
                   Tensor::from_vector<float>({2, 4}, {2.5f, -2.25f, 1.0f, -0.0f, -2.25f, 1.0f, -0.0f, -1.0f}));
  // np.sqrt(np.sum(x ** 2, axis=(2, 0)))
  expect_reference(reduce_op(fb::OpType::ReduceL2, false), {x, axes({2, 0})},
                   Tensor::from_vector<float>({3}, {4.795831523f, 4.092676386f, 4.743416490f}));
}

TEST(ReduceOps, IntegerReferenceMatchesNumpy) {
  // xi = ((np.arange(24) * 5) % 9 - 4).reshape(2, 3, 4).astype(np.int32)
  Tensor xi = Tensor::from_vector<int32_t>(
      {2, 3, 4}, {-4, 1, -3, 2, -2, 3, -1, 4, 0, -4, 1, -3, 2, -2, 3, -1, 4, 0, -4, 1, -3, 2, -2, 3});
  // np.sum(xi, axis=1)
  expect_reference(reduce_op(fb::OpType::ReduceSum, false), {xi, axes({1})},
                   Tensor::from_vector<int32_t>({2, 4}, {-6, 0, -3, 3, 3, 0, -3, 3}));
  // np.prod(xi, axis=-1)
  expect_reference(reduce_op(fb::OpType::ReduceProd, false), {xi, axes({-1})},
                   Tensor::from_vector<int32_t>({2, 3}, {24, 24, 0, 12, 0, 36}));
  // np.min(xi, axis=0)
  expect_reference(reduce_op(fb::OpType::ReduceMin, false), {xi, axes({0})},
                   Tensor::from_vector<int32_t>({3, 4}, {-4, -2, -3, -1, -2, 0, -4, 1, -3, -4, -2, -3}));
  // np.max(xi.astype(np.int64), axis=(0, 2), keepdims=True)
  Tensor xl = Tensor::from_vector<int64_t>(
      {2, 3, 4}, {-4, 1, -3, 2, -2, 3, -1, 4, 0, -4, 1, -3, 2, -2, 3, -1, 4, 0, -4, 1, -3, 2, -2, 3});
  expect_reference(reduce_op(fb::OpType::ReduceMax), {xl, axes({0, 2})},
                   Tensor::from_vector<int64_t>({1, 3, 1}, {3, 4, 3}));
}

TEST(ReduceOps, ArgCpuMatchesReference) {
  for (fb::OpType type : {fb::OpType::ArgMax, fb::OpType::ArgMin}) {
    for (int64_t n : odd_sizes()) {
      for (int64_t axis : {0, 1, 2, -1, -2}) {
        for (bool last : {false, true}) {
          expect_cpu_matches_reference(arg_op(type, axis, true, last), {random_tensor(DType::F32, {3, n, 5}, 11)}, 0,
                                       0);
          expect_cpu_matches_reference(arg_op(type, axis, false, last),
                                       {random_tensor(DType::I32, {3, n, 5}, 12, -3, 3)}, 0, 0);
          expect_cpu_matches_reference(arg_op(type, axis, true, last),
                                       {random_tensor(DType::I64, {3, n, 5}, 13, -3, 3)}, 0, 0);
        }
      }
    }
    // Many ties in floats (values drawn from a few integers), long and wide.
    Tensor ties = random_tensor(DType::I32, {2, 700, 600}, 14, -4, 4);
    std::vector<double> values = ties.to_doubles();
    Tensor ties_f32 = Tensor::zeros(DType::F32, {2, 700, 600});
    for (size_t i = 0; i < values.size(); ++i) ties_f32.data<float>()[i] = static_cast<float>(values[i]);
    for (int64_t axis : {0, 1, 2}) {
      for (bool last : {false, true}) expect_cpu_matches_reference(arg_op(type, axis, false, last), {ties_f32}, 0, 0);
    }
  }
}

TEST(ReduceOps, ArgNaNCountsAsExtreme) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // np.argmax([1, nan, 3, nan]) == 1 and np.argmin(...) == 1; with select_last_index: 3.
  Tensor x = Tensor::from_vector<float>({4}, {1.0f, nan, 3.0f, nan});
  for (fb::OpType type : {fb::OpType::ArgMax, fb::OpType::ArgMin}) {
    for (Impl impl : {Impl::kReference, Impl::kCpu}) {
      auto first = run_op(arg_op(type, 0, false, false), {x}, impl);
      ASSERT_TRUE(first.ok()) << first.status().to_string();
      EXPECT_EQ((*first)[0].data<int64_t>()[0], 1) << impl_name(impl);
      auto last = run_op(arg_op(type, 0, false, true), {x}, impl);
      ASSERT_TRUE(last.ok()) << last.status().to_string();
      EXPECT_EQ((*last)[0].data<int64_t>()[0], 3) << impl_name(impl);
    }
  }
  std::vector<float> column(4 * 20, 0.5f);
  column[2 * 20 + 3] = nan;
  column[1 * 20 + 7] = nan;
  column[3 * 20 + 7] = nan;
  for (bool last : {false, true}) {
    expect_cpu_matches_reference(arg_op(fb::OpType::ArgMax, 0, true, last),
                                 {Tensor::from_vector<float>({4, 20}, column)}, 0, 0);
  }
}

TEST(ReduceOps, ArgReferenceMatchesNumpy) {
  Tensor x = numpy_case();
  // np.argmax(x, axis=1)[:, None, :]
  expect_reference(arg_op(fb::OpType::ArgMax, 1), {x},
                   Tensor::from_vector<int64_t>({2, 1, 4}, {1, 2, 1, 0, 2, 1, 0, 2}));
  // np.argmin(x, axis=-1)
  expect_reference(arg_op(fb::OpType::ArgMin, -1, false), {x},
                   Tensor::from_vector<int64_t>({2, 3}, {0, 1, 3, 1, 3, 2}));
  // Ties: y = [[1, 3, 3, 0, 0], [2, 2, 2, 2, 2]]; np.argmax(y, 1) = [1, 0], np.argmin(y, 1) = [3, 0];
  // select_last_index: 4 - np.argmax(y[:, ::-1], 1) = [2, 4], 4 - np.argmin(y[:, ::-1], 1) = [4, 4].
  Tensor y = Tensor::from_vector<float>({2, 5}, {1, 3, 3, 0, 0, 2, 2, 2, 2, 2});
  expect_reference(arg_op(fb::OpType::ArgMax, 1, false), {y}, Tensor::from_vector<int64_t>({2}, {1, 0}));
  expect_reference(arg_op(fb::OpType::ArgMin, 1, false), {y}, Tensor::from_vector<int64_t>({2}, {3, 0}));
  expect_reference(arg_op(fb::OpType::ArgMax, 1, false, true), {y}, Tensor::from_vector<int64_t>({2}, {2, 4}));
  expect_reference(arg_op(fb::OpType::ArgMin, 1, false, true), {y}, Tensor::from_vector<int64_t>({2}, {4, 4}));
  // xi as in IntegerReferenceMatchesNumpy: np.argmax(xi, axis=2)
  Tensor xi = Tensor::from_vector<int32_t>(
      {2, 3, 4}, {-4, 1, -3, 2, -2, 3, -1, 4, 0, -4, 1, -3, 2, -2, 3, -1, 4, 0, -4, 1, -3, 2, -2, 3});
  expect_reference(arg_op(fb::OpType::ArgMax, 2, false), {xi},
                   Tensor::from_vector<int64_t>({2, 3}, {3, 3, 2, 2, 0, 3}));
}

TEST(ReduceOps, ShapeErrors) {
  Tensor x = random_tensor(DType::F32, {2, 3}, 1);
  auto expect_invalid = [](const Result<std::vector<Tensor>>& r, const char* what) {
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidModel) << what << ": " << r.status().to_string();
  };
  expect_invalid(run_op(reduce_op(fb::OpType::ReduceSum), {x, axes({2})}, Impl::kCpu), "axis out of range");
  expect_invalid(run_op(reduce_op(fb::OpType::ReduceSum), {x, axes({-3})}, Impl::kCpu), "negative axis out of range");
  expect_invalid(run_op(reduce_op(fb::OpType::ReduceSum), {x, axes({1, -1})}, Impl::kCpu), "repeated axis");
  expect_invalid(run_op(reduce_op(fb::OpType::ReduceSum), {x, Tensor::from_vector<float>({1}, {0})}, Impl::kCpu),
                 "float axes");
  expect_invalid(run_op(reduce_op(fb::OpType::ReduceSum), {x, Tensor::from_vector<int64_t>({1, 1}, {0})}, Impl::kCpu),
                 "2-D axes");
  expect_invalid(
      run_op(reduce_op(fb::OpType::ReduceMean), {random_tensor(DType::I32, {2, 3}, 1), axes({0})}, Impl::kCpu),
      "integer mean");
  expect_invalid(run_op(reduce_op(fb::OpType::ReduceL2), {random_tensor(DType::I64, {2, 3}, 1), axes({0})}, Impl::kCpu),
                 "integer L2");
  expect_invalid(
      run_op(reduce_op(fb::OpType::ReduceSum), {random_tensor(DType::Bool, {2, 3}, 1), axes({0})}, Impl::kCpu),
      "bool sum");
  expect_invalid(run_op(reduce_op(fb::OpType::ReduceMax), {random_tensor(DType::U8, {2, 3}, 1), axes({0})}, Impl::kCpu),
                 "u8 max");
  expect_invalid(run_op(arg_op(fb::OpType::ArgMax, 2), {x}, Impl::kCpu), "arg axis out of range");
  expect_invalid(run_op(arg_op(fb::OpType::ArgMin, -3), {x}, Impl::kCpu), "arg negative axis out of range");
  expect_invalid(run_op(arg_op(fb::OpType::ArgMax, 1), {Tensor::zeros(DType::F32, {2, 0})}, Impl::kCpu),
                 "arg over an empty axis");
  expect_invalid(run_op(arg_op(fb::OpType::ArgMax, 0), {Tensor::from_vector<float>({}, {1})}, Impl::kCpu),
                 "arg of a scalar");
  expect_invalid(run_op(arg_op(fb::OpType::ArgMax, 0), {random_tensor(DType::Bool, {2}, 1)}, Impl::kCpu),
                 "arg of bools");
}

TEST(ReduceOps, OutputShapes) {
  Tensor x = random_tensor(DType::F32, {2, 3, 4}, 1);
  auto keep = run_op(reduce_op(fb::OpType::ReduceSum), {x, axes({0, 2})}, Impl::kCpu);
  ASSERT_TRUE(keep.ok());
  EXPECT_EQ((*keep)[0].shape(), (Shape{1, 3, 1}));
  auto drop = run_op(reduce_op(fb::OpType::ReduceSum, false), {x, axes({0, 2})}, Impl::kCpu);
  ASSERT_TRUE(drop.ok());
  EXPECT_EQ((*drop)[0].shape(), (Shape{3}));
  auto all = run_op(reduce_op(fb::OpType::ReduceSum, false), {x, std::nullopt}, Impl::kCpu);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ((*all)[0].shape(), (Shape{}));
  auto arg = run_op(arg_op(fb::OpType::ArgMax, -2, false), {x}, Impl::kCpu);
  ASSERT_TRUE(arg.ok());
  EXPECT_EQ((*arg)[0].shape(), (Shape{2, 4}));
  EXPECT_EQ((*arg)[0].dtype(), DType::I64);
}

}  // namespace
}  // namespace mote::test
