// The gradient ops (ConvGradWeight, MaxPoolGrad, AveragePoolGrad): shape
// checks, the CPU kernel against the reference, and small hand-computed
// cases. Their gradients are checked against finite differences in
// tests/train/grad_layers_test.cpp.
#include <gtest/gtest.h>

#include "tests/support/op_test_util.hpp"

namespace mote::test {
namespace {

TEST(GradientOps, ConvGradWeightHandComputed) {
  // 1x1x3 input, 1x1x2 kernel: dW[k] = sum_o x[o + k] * dy[o].
  fb::ConvAttrsT a;
  a.kernel_shape = {2};
  auto op = make_op(fb::OpType::ConvGradWeight, a);
  Tensor x = Tensor::from_vector<float>({1, 1, 3}, {1, 2, 3});
  Tensor dy = Tensor::from_vector<float>({1, 1, 2}, {10, 100});
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    auto out = run_op(op, {x, dy}, impl);
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    EXPECT_EQ((*out)[0].shape(), (Shape{1, 1, 2}));
    EXPECT_EQ((*out)[0].to_doubles(), (std::vector<double>{210, 320}));
  }
  expect_cpu_matches_reference(op, {random_tensor(DType::F32, {2, 1, 7}, 1), random_tensor(DType::F32, {2, 1, 6}, 2)});
}

TEST(GradientOps, PoolGradsHandComputed) {
  fb::PoolAttrsT a;
  a.kernel_shape = {2};
  a.strides = {2};
  Tensor x = Tensor::from_vector<float>({1, 1, 4}, {1, 5, 7, 2});
  Tensor dy = Tensor::from_vector<float>({1, 1, 2}, {3, 4});
  auto max = run_op(make_op(fb::OpType::MaxPoolGrad, a), {x, dy}, Impl::kCpu);
  ASSERT_TRUE(max.ok()) << max.status().to_string();
  EXPECT_EQ((*max)[0].to_doubles(), (std::vector<double>{0, 3, 4, 0}));
  auto avg = run_op(make_op(fb::OpType::AveragePoolGrad, a), {x, dy}, Impl::kReference);
  ASSERT_TRUE(avg.ok()) << avg.status().to_string();
  EXPECT_EQ((*avg)[0].to_doubles(), (std::vector<double>{1.5, 1.5, 2, 2}));
}

TEST(GradientOps, ShapeErrorsNameTheProblem) {
  fb::ConvAttrsT a;
  a.kernel_shape = {2};
  auto bad_dy = run_op(make_op(fb::OpType::ConvGradWeight, a),
                       {random_tensor(DType::F32, {1, 1, 3}, 1), random_tensor(DType::F32, {1, 1, 5}, 2)}, Impl::kCpu);
  ASSERT_FALSE(bad_dy.ok());
  EXPECT_NE(bad_dy.status().message().find("dY"), std::string::npos) << bad_dy.status().message();
  fb::ConvAttrsT no_kernel;
  EXPECT_FALSE(run_op(make_op(fb::OpType::ConvGradWeight, no_kernel),
                      {random_tensor(DType::F32, {1, 1, 3}, 1), random_tensor(DType::F32, {1, 1, 2}, 2)}, Impl::kCpu)
                   .ok());
  fb::PoolAttrsT p;
  p.kernel_shape = {2};
  auto bad_pool = run_op(make_op(fb::OpType::MaxPoolGrad, p),
                         {random_tensor(DType::F32, {1, 1, 4}, 1), random_tensor(DType::F32, {1, 1, 2}, 2)}, Impl::kCpu);
  ASSERT_FALSE(bad_pool.ok());
  EXPECT_NE(bad_pool.status().message().find("pool output"), std::string::npos) << bad_pool.status().message();
}

}  // namespace
}  // namespace mote::test
