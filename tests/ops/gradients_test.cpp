// The gradient ops (ConvGradWeight, MaxPoolGrad, AveragePoolGrad): shape
// checks, the CPU kernel against the reference, and small hand-computed
// cases. Their gradients are checked against finite differences in
// tests/train/grad_layers_test.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/support/op_attrs.hpp"
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

// The CPU kernel's GEMM form against the reference's direct sums, over the
// geometries that change its indexing: strides with uneven pads, dilation,
// groups and depthwise, 1-D and 3-D, batches split across threads, and
// enough channels x taps that the pixels are cut into several column tiles.
TEST(GradientOps, ConvGradWeightCpuGeometries) {
  struct Case {
    Shape x, dy;
    std::vector<int64_t> kernel, strides, pads, dilations;
    int64_t group;
  };
  const std::vector<Case> cases = {
      {{3, 4, 9, 8}, {3, 6, 4, 4}, {3, 3}, {2, 2}, {1, 0, 0, 1}, {}, 1},
      {{2, 3, 9, 9}, {2, 4, 5, 5}, {3, 3}, {}, {}, {2, 2}, 1},
      {{5, 6, 7, 7}, {5, 4, 7, 7}, {3, 3}, {}, {1, 1, 1, 1}, {}, 2},
      {{4, 8, 10, 10}, {4, 8, 10, 10}, {3, 3}, {}, {1, 1, 1, 1}, {}, 8},
      {{3, 2, 31}, {3, 5, 16}, {3}, {2}, {1, 1}, {}, 1},
      {{2, 2, 5, 6, 7}, {2, 3, 3, 4, 5}, {3, 3, 3}, {}, {}, {}, 1},
      {{2, 64, 30, 30}, {2, 8, 30, 30}, {3, 3}, {}, {1, 1, 1, 1}, {}, 1},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    fb::ConvAttrsT a = conv_attrs(c.strides, c.pads, c.dilations, c.group);
    a.kernel_shape = c.kernel;
    SCOPED_TRACE("case " + std::to_string(i));
    expect_cpu_matches_reference(make_op(fb::OpType::ConvGradWeight, a),
                                 {random_tensor(DType::F32, c.x, 10 + i), random_tensor(DType::F32, c.dy, 20 + i)},
                                 1e-4, 1e-4);
  }
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

// The CPU pool gradients scatter per output; the reference gathers per input.
// Overlapping windows, dilation, padding with and without count_include_pad,
// ceil_mode, 1-D and 3-D, ties and a NaN (the first NaN or first maximum
// takes the gradient).
TEST(GradientOps, PoolGradsCpuGeometries) {
  constexpr auto kNotSet = fb::AutoPad::NotSet;
  struct Case {
    Shape x;
    PoolParams p;
  };
  const std::vector<Case> cases = {
      {{2, 3, 8, 8}, {{2, 2}, {2, 2}, {}, {}, kNotSet, false, false}},
      {{2, 2, 9, 7}, {{3, 3}, {1, 1}, {1, 1, 1, 1}, {}, kNotSet, false, false}},
      {{1, 2, 9, 7}, {{3, 3}, {2, 2}, {1, 0, 1, 2}, {}, kNotSet, true, true}},
      {{1, 3, 10, 10}, {{3, 2}, {2, 1}, {}, {2, 2}, kNotSet, false, false}},
      {{2, 2, 17}, {{4}, {3}, {2, 1}, {}, kNotSet, true, false}},
      {{1, 2, 5, 6, 7}, {{2, 3, 2}, {1, 2, 2}, {0, 1, 0, 1, 0, 1}, {}, kNotSet, false, true}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    auto shape = run_op(pool_op(fb::OpType::MaxPool, c.p), {random_tensor(DType::F32, c.x, 1)}, Impl::kReference);
    ASSERT_TRUE(shape.ok()) << shape.status().to_string();
    Tensor x = random_tensor(DType::F32, c.x, 30 + i, -1.0, 1.0);
    // Ties and a NaN exercise the choice of tap.
    x.data<float>()[1] = x.data<float>()[0];
    x.data<float>()[5] = std::nanf("");
    const Tensor dy = random_tensor(DType::F32, (*shape)[0].shape(), 40 + i);
    SCOPED_TRACE("case " + std::to_string(i));
    expect_cpu_matches_reference(pool_op(fb::OpType::MaxPoolGrad, c.p), {x, dy});
    expect_cpu_matches_reference(pool_op(fb::OpType::AveragePoolGrad, c.p), {x, dy});
  }
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
