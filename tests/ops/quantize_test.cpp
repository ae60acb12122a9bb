// QuantizeLinear and DequantizeLinear: the CPU kernels (per-tensor fast path,
// the reference for the rest) against the reference, exactly: ties that must
// round to even, values that saturate, NaN, with and without zero points.
#include <limits>
#include <vector>

#include "tests/support/op_test_util.hpp"
#include "tests/support/simd_targets.hpp"

namespace mote::test {
namespace {

Tensor one(DType dtype, double v) {
  Tensor t = Tensor::zeros(dtype, {1});
  if (dtype == DType::F32) t.data<float>()[0] = static_cast<float>(v);
  if (dtype == DType::U8) t.data<uint8_t>()[0] = static_cast<uint8_t>(v);
  if (dtype == DType::I8) t.data<int8_t>()[0] = static_cast<int8_t>(v);
  return t;
}

// Values around every rounding case at scale 0.5: k/2 + 0.25 is a tie.
Tensor tricky_values(int64_t n) {
  Tensor t = random_tensor(DType::F32, {n}, 3, -200.0, 200.0);
  float* v = t.data<float>();
  for (int64_t i = 0; i < n && i < 64; ++i) v[i] = static_cast<float>(i - 32) * 0.5f + 0.25f;
  v[n - 1] = std::numeric_limits<float>::quiet_NaN();
  v[n - 2] = 1e9f;
  v[n - 3] = -1e9f;
  return t;
}

TEST(QuantizeOps, PerTensorCpuMatchesReference) {
  fb::OpT op = make_op(fb::OpType::QuantizeLinear, fb::QuantizeAttrsT{});
  for (int64_t n : {5, 1000, 70001}) {
    const Tensor x = tricky_values(n);
    expect_cpu_matches_reference(op, {x, one(DType::F32, 0.5), one(DType::U8, 128)}, 0, 0);
    expect_cpu_matches_reference(op, {x, one(DType::F32, 0.5), one(DType::I8, -3)}, 0, 0);
  }
  // Without a zero point: uint8 by default (output_dtype unset).
  expect_cpu_matches_reference(op, {tricky_values(100), one(DType::F32, 2.0), std::nullopt}, 0, 0);
}

TEST(DequantizeOps, PerTensorCpuMatchesReference) {
  fb::OpT op = make_op(fb::OpType::DequantizeLinear, fb::QuantizeAttrsT{});
  for (int64_t n : {5, 70001}) {
    expect_cpu_matches_reference(op, {random_tensor(DType::U8, {n}, 1, 0, 256), one(DType::F32, 0.37), one(DType::U8, 131)},
                                 0, 0);
    expect_cpu_matches_reference(op, {random_tensor(DType::I8, {n}, 2, -128, 128), one(DType::F32, 0.37), std::nullopt},
                                 0, 0);
  }
}

TEST(QuantizeOps, PerAxisFallsBackToTheReference) {
  fb::QuantizeAttrsT a;
  a.axis = 1;
  fb::OpT op = make_op(fb::OpType::QuantizeLinear, a);
  expect_cpu_matches_reference(op,
                               {random_tensor(DType::F32, {2, 3, 4}, 1, -5, 5), random_tensor(DType::F32, {3}, 2, 0.1, 1),
                                random_tensor(DType::U8, {3}, 3, 100, 150)},
                               0, 0);
}

// DynamicQuantizeLinear: ONNX's example (its operator documentation),
// on both backends.
TEST(DynamicQuantizeOps, MatchesOnnxExample) {
  const fb::OpT op = make_op(fb::OpType::DynamicQuantizeLinear);
  const Tensor x = Tensor::from_vector<float>({6}, {0.0f, 2.0f, -3.0f, -2.5f, 1.34f, 0.5f});
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    auto out = run_op(op, {x}, impl);
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    expect_tensors_near((*out)[0], Tensor::from_vector<uint8_t>({6}, {153, 255, 0, 26, 221, 179}), 0, 0,
                        impl_name(impl));
    EXPECT_NEAR((*out)[1].data<float>()[0], 5.0 / 255.0, 1e-9) << impl_name(impl);
    EXPECT_EQ((*out)[2].data<uint8_t>()[0], 153) << impl_name(impl);
  }
}

// Ranges on one side of 0, NaNs (left out of the range, quantised to 0),
// all zeros (scale 1, as onnxruntime gives), and tensors split into parts
// for the range at 2 threads, on every SIMD target.
TEST(DynamicQuantizeOps, CpuMatchesReference) {
  const fb::OpT op = make_op(fb::OpType::DynamicQuantizeLinear);
  Tensor with_nan = random_tensor(DType::F32, {40}, 3, -2, 7);
  with_nan.data<float>()[5] = std::numeric_limits<float>::quiet_NaN();
  with_nan.data<float>()[37] = std::numeric_limits<float>::quiet_NaN();  // past the last full vector
  const std::vector<Tensor> inputs = {
      random_tensor(DType::F32, {3, 70001}, 1, -4, 9), random_tensor(DType::F32, {100}, 2, 1, 3),
      random_tensor(DType::F32, {100}, 4, -3, -1), with_nan, Tensor::zeros(DType::F32, {17})};
  for_each_simd_target([&] {
    for (const Tensor& x : inputs) expect_cpu_matches_reference(op, {x}, 0, 0);
  });
  auto zeros = run_op(op, {inputs.back()}, Impl::kCpu);
  ASSERT_TRUE(zeros.ok()) << zeros.status().to_string();
  EXPECT_EQ((*zeros)[1].data<float>()[0], 1.0f);
  EXPECT_EQ((*zeros)[2].data<uint8_t>()[0], 0);
  auto nan = run_op(op, {with_nan}, Impl::kCpu);
  ASSERT_TRUE(nan.ok()) << nan.status().to_string();
  EXPECT_EQ((*nan)[0].data<uint8_t>()[5], 0);
  EXPECT_GT((*nan)[1].data<float>()[0], 0.0f);
}

}  // namespace
}  // namespace mote::test
