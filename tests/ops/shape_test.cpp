#include "tests/ops/data_movement_test_util.hpp"

namespace mote::test {
namespace {

fb::OpT shape_op(int64_t start, int64_t end) {
  fb::ShapeAttrsT a;
  a.start = start;
  a.end = end;
  return make_op(fb::OpType::Shape, a);
}

fb::OpT constant_op(DType dtype, double value) {
  fb::ConstantOfShapeAttrsT a;
  a.dtype = dtype;
  a.value = value;
  return make_op(fb::OpType::ConstantOfShape, a);
}

template <class T>
Tensor scalar(T value) {
  return Tensor::from_vector<T>({}, {value});
}

TEST(ShapeOps, CpuMatchesReference) {
  Tensor x = Tensor::zeros(DType::F32, {2, 3, 4, 5});
  for (int64_t start : {0, 1, -1, -7, 9}) {
    for (int64_t end : std::vector<int64_t>{INT64_MAX, 0, 2, -1, -9}) expect_cpu_matches_reference_exactly(shape_op(start, end), {x});
  }
  expect_cpu_matches_reference_exactly(make_op(fb::OpType::Shape), {scalar<float>(1)});
  expect_cpu_matches_reference_exactly(make_op(fb::OpType::Size), {x});
  expect_cpu_matches_reference_exactly(make_op(fb::OpType::Size), {Tensor::zeros(DType::I8, {3, 0})});
  for (int64_t n : odd_sizes()) {
    for (DType dtype : {DType::F32, DType::F16, DType::F64, DType::I8, DType::U8, DType::I32, DType::I64, DType::Bool}) {
      expect_cpu_matches_reference_exactly(constant_op(dtype, -2.5), {i64s({n, 3})});
    }
    expect_cpu_matches_reference_exactly(make_op(fb::OpType::Range), {scalar<float>(-1.5f), scalar<float>(n), scalar<float>(0.25f)});
    expect_cpu_matches_reference_exactly(make_op(fb::OpType::Range), {scalar<int32_t>(n), scalar<int32_t>(-n), scalar<int32_t>(-2)});
    expect_cpu_matches_reference_exactly(make_op(fb::OpType::Range), {scalar<int64_t>(0), scalar<int64_t>(n * 1000), scalar<int64_t>(3)});
  }
  expect_cpu_matches_reference_exactly(constant_op(DType::F32, 1), {i64s({})});  // a scalar
  expect_cpu_matches_reference_exactly(constant_op(DType::I32, 7), {i64s({300, 1000})});
}

// numpy: np.array(np.zeros((2, 3, 4, 5)).shape)[1:-1], np.zeros((2, 3, 4, 5)).size
TEST(ShapeOps, ShapeAndSizeReferenceMatchNumpy) {
  Tensor x = Tensor::zeros(DType::F32, {2, 3, 4, 5});
  auto shape = run_reference(shape_op(1, -1), {x});
  ASSERT_EQ(shape.size(), 1u);
  expect_tensors_near(shape[0], i64s({3, 4}), 0, 0);
  auto all = run_reference(make_op(fb::OpType::Shape), {x});
  ASSERT_EQ(all.size(), 1u);
  expect_tensors_near(all[0], i64s({2, 3, 4, 5}), 0, 0);
  auto empty = run_reference(shape_op(3, 1), {x});  // start after end: nothing
  ASSERT_EQ(empty.size(), 1u);
  expect_tensors_near(empty[0], i64s({}), 0, 0);
  auto size = run_reference(make_op(fb::OpType::Size), {x});
  ASSERT_EQ(size.size(), 1u);
  expect_tensors_near(size[0], scalar<int64_t>(120), 0, 0);
}

// numpy: np.full((2, 3), 7, dtype=np.int32); np.full((), 0.5, dtype=np.float32)
TEST(ShapeOps, ConstantOfShapeReferenceMatchesNumpy) {
  auto y = run_reference(constant_op(DType::I32, 7), {i64s({2, 3})});
  ASSERT_EQ(y.size(), 1u);
  expect_tensors_near(y[0], Tensor::from_vector<int32_t>({2, 3}, {7, 7, 7, 7, 7, 7}), 0, 0);
  auto z = run_reference(constant_op(DType::F32, 0.5), {i64s({})});
  ASSERT_EQ(z.size(), 1u);
  expect_tensors_near(z[0], scalar<float>(0.5f), 0, 0);
  auto d = run_reference(make_op(fb::OpType::ConstantOfShape), {i64s({2})});  // default: f32 zeros
  ASSERT_EQ(d.size(), 1u);
  expect_tensors_near(d[0], Tensor::from_vector<float>({2}, {0, 0}), 0, 0);
}

// numpy: np.arange(1, 5, 1.5, dtype=np.float32), np.arange(10, 4, -3), np.arange(-3, 3, 2, dtype=np.int32)
TEST(ShapeOps, RangeReferenceMatchesNumpy) {
  const fb::OpT op = make_op(fb::OpType::Range);
  auto f = run_reference(op, {scalar<float>(1), scalar<float>(5), scalar<float>(1.5f)});
  ASSERT_EQ(f.size(), 1u);
  expect_tensors_near(f[0], Tensor::from_vector<float>({3}, {1, 2.5f, 4}), 0, 0);
  auto i = run_reference(op, {scalar<int64_t>(10), scalar<int64_t>(4), scalar<int64_t>(-3)});
  ASSERT_EQ(i.size(), 1u);
  expect_tensors_near(i[0], i64s({10, 7}), 0, 0);
  auto j = run_reference(op, {scalar<int32_t>(-3), scalar<int32_t>(3), scalar<int32_t>(2)});
  ASSERT_EQ(j.size(), 1u);
  expect_tensors_near(j[0], i32s({-3, -1, 1}), 0, 0);
  auto none = run_reference(op, {scalar<int64_t>(3), scalar<int64_t>(3), scalar<int64_t>(1)});
  ASSERT_EQ(none.size(), 1u);
  expect_tensors_near(none[0], i64s({}), 0, 0);
}

TEST(ShapeOps, RangeOfExtremeIntegersDoesNotOverflow) {
  const fb::OpT op = make_op(fb::OpType::Range);
  // The span INT64_MIN..INT64_MAX does not fit in int64.
  const int64_t lo = INT64_MIN, hi = INT64_MAX, step = int64_t{1} << 62;
  auto y = run_reference(op, {scalar<int64_t>(lo), scalar<int64_t>(hi), scalar<int64_t>(step)});
  ASSERT_EQ(y.size(), 1u);
  expect_tensors_near(y[0], i64s({lo, -step, 0, step}), 0, 0);
  expect_cpu_matches_reference_exactly(op, {scalar<int64_t>(lo), scalar<int64_t>(hi), scalar<int64_t>(step)});
  expect_cpu_matches_reference_exactly(op, {scalar<int64_t>(hi), scalar<int64_t>(lo), scalar<int64_t>(-step)});
}

TEST(ShapeOps, ShapeErrorsAreReported) {
  expect_rejected(constant_op(DType::F32, 1), {i64s({2, -1})}, "negative dimension");
  expect_rejected(constant_op(DType::F32, 1), {Tensor::from_vector<float>({1}, {2})}, "must be i64 or i32");
  expect_rejected(constant_op(static_cast<DType>(42), 1), {i64s({2})}, "unknown dtype");
  const fb::OpT range = make_op(fb::OpType::Range);
  expect_rejected(range, {scalar<float>(0), scalar<float>(1), scalar<float>(0)}, "'delta' is 0");
  expect_rejected(range, {scalar<int64_t>(0), scalar<int64_t>(1), scalar<int64_t>(0)}, "'delta' is 0");
  expect_rejected(range, {scalar<float>(0), scalar<int32_t>(1), scalar<float>(1)}, "same dtype");
  expect_rejected(range, {i64s({0, 1}), scalar<int64_t>(1), scalar<int64_t>(1)}, "scalars");
  expect_rejected(range, {scalar<uint8_t>(0), scalar<uint8_t>(1), scalar<uint8_t>(1)}, "must be f32, f64, i32 or i64");
  expect_rejected(range, {scalar<float>(0), scalar<float>(INFINITY), scalar<float>(1)}, "no finite length");
}

}  // namespace
}  // namespace mote::test
