// The reference kernels on f64 tensors (what the gradient checks run in,
// tests/train/grad_check.hpp) against naive double loops written here: f64
// must neither round through f32 nor mix up element sizes.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/support/op_attrs.hpp"
#include "tests/support/op_test_util.hpp"

namespace mote::test {
namespace {

// Rounding in double only: a few ulps of the values involved.
constexpr double kRtol = 1e-13;
constexpr double kAtol = 1e-14;

Tensor rnd64(Shape shape, uint32_t seed, double lo = -1.0, double hi = 1.0) {
  return random_tensor(DType::F64, std::move(shape), seed, lo, hi);
}

Tensor run_reference(const fb::OpT& op, const Inputs& inputs) {
  auto out = run_op(op, inputs, Impl::kReference);
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  if (!out.ok()) return {};
  EXPECT_EQ((*out)[0].dtype(), DType::F64);
  return (*out)[0];
}

TEST(ReferenceF64, KeepsPrecisionF32WouldLose) {
  // 1 + 1e-12 is 1 in f32; in f64 the difference survives Add then Sub.
  Tensor one = Tensor::from_vector<double>({2}, {1.0, -3.0});
  Tensor tiny = Tensor::from_vector<double>({2}, {1e-12, 1e-11});
  Tensor sum = run_reference(make_op(fb::OpType::Add), {one, tiny});
  Tensor diff = run_reference(make_op(fb::OpType::Sub), {sum, one});
  EXPECT_NEAR(diff.data<double>()[0], 1e-12, 1e-22 + 1e-15);
  EXPECT_NEAR(diff.data<double>()[1], 1e-11, 1e-21 + 1e-14);
}

TEST(ReferenceF64, UnaryMathMatchesCmath) {
  Tensor x = rnd64({3, 7}, 1, 0.1, 2.0);
  struct Case {
    fb::OpType type;
    double (*f)(double);
  };
  const Case cases[] = {
      {fb::OpType::Exp, [](double v) { return std::exp(v); }},
      {fb::OpType::Log, [](double v) { return std::log(v); }},
      {fb::OpType::Sqrt, [](double v) { return std::sqrt(v); }},
      {fb::OpType::Tanh, [](double v) { return std::tanh(v); }},
      {fb::OpType::Sigmoid, [](double v) { return 1.0 / (1.0 + std::exp(-v)); }},
      {fb::OpType::Neg, [](double v) { return -v; }},
  };
  for (const Case& c : cases) {
    Tensor want = Tensor::zeros(DType::F64, x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) want.data<double>()[i] = c.f(x.data<double>()[i]);
    expect_tensors_near(run_reference(make_op(c.type), {x}), want, kRtol, kAtol, op_type_name(c.type));
  }
}

TEST(ReferenceF64, BroadcastDivAndGreater) {
  Tensor a = rnd64({2, 3, 4}, 2);
  Tensor b = rnd64({3, 1}, 3, 0.5, 1.5);
  Tensor want = Tensor::zeros(DType::F64, {2, 3, 4});
  std::vector<bool> greater;
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t c = 0; c < 3; ++c) {
      for (int64_t w = 0; w < 4; ++w) {
        const double x = a.data<double>()[(n * 3 + c) * 4 + w], y = b.data<double>()[c];
        want.data<double>()[(n * 3 + c) * 4 + w] = x / y;
        greater.push_back(x > y);
      }
    }
  }
  expect_tensors_near(run_reference(make_op(fb::OpType::Div), {a, b}), want, kRtol, kAtol, "Div");
  auto cmp = run_op(make_op(fb::OpType::Greater), {a, b}, Impl::kReference);
  ASSERT_TRUE(cmp.ok()) << cmp.status().to_string();
  ASSERT_EQ((*cmp)[0].dtype(), DType::Bool);
  for (size_t i = 0; i < greater.size(); ++i) EXPECT_EQ((*cmp)[0].data<bool>()[i], greater[i]) << i;
}

TEST(ReferenceF64, GemmTransposedWithBias) {
  const int64_t m = 3, n = 5, k = 4;
  Tensor a = rnd64({k, m}, 4), b = rnd64({n, k}, 5), c = rnd64({n}, 6);
  Tensor want = Tensor::zeros(DType::F64, {m, n});
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += a.data<double>()[p * m + i] * b.data<double>()[j * k + p];
      want.data<double>()[i * n + j] = 0.5 * acc + 2.0 * c.data<double>()[j];
    }
  }
  expect_tensors_near(run_reference(make_op(fb::OpType::Gemm, gemm_attrs(0.5f, 2.0f, true, true)), {a, b, c}), want,
                      kRtol, kAtol);
}

TEST(ReferenceF64, ConvStridedPaddedAndItsWeightGradient) {
  // x [1, 2, 5, 5], w [3, 2, 3, 3], stride 2, pad 1: y [1, 3, 3, 3].
  Tensor x = rnd64({1, 2, 5, 5}, 7), w = rnd64({3, 2, 3, 3}, 8), bias = rnd64({3}, 9);
  auto xs = [&](int64_t c, int64_t h, int64_t v) { return x.data<double>()[(c * 5 + h) * 5 + v]; };
  Tensor want = Tensor::zeros(DType::F64, {1, 3, 3, 3});
  for (int64_t m = 0; m < 3; ++m) {
    for (int64_t oh = 0; oh < 3; ++oh) {
      for (int64_t ow = 0; ow < 3; ++ow) {
        double acc = bias.data<double>()[m];
        for (int64_t c = 0; c < 2; ++c) {
          for (int64_t kh = 0; kh < 3; ++kh) {
            for (int64_t kw = 0; kw < 3; ++kw) {
              const int64_t h = oh * 2 - 1 + kh, v = ow * 2 - 1 + kw;
              if (h < 0 || h >= 5 || v < 0 || v >= 5) continue;
              acc += xs(c, h, v) * w.data<double>()[((m * 2 + c) * 3 + kh) * 3 + kw];
            }
          }
        }
        want.data<double>()[(m * 3 + oh) * 3 + ow] = acc;
      }
    }
  }
  fb::ConvAttrsT a = conv_attrs({2, 2}, {1, 1, 1, 1});
  expect_tensors_near(run_reference(make_op(fb::OpType::Conv, a), {x, w, bias}), want, kRtol, kAtol, "Conv");

  // dW[m, c, kh, kw] = sum over outputs of dY * the input tap they read.
  Tensor dy = rnd64({1, 3, 3, 3}, 10);
  Tensor dw = Tensor::zeros(DType::F64, {3, 2, 3, 3});
  for (int64_t m = 0; m < 3; ++m) {
    for (int64_t c = 0; c < 2; ++c) {
      for (int64_t kh = 0; kh < 3; ++kh) {
        for (int64_t kw = 0; kw < 3; ++kw) {
          double acc = 0;
          for (int64_t oh = 0; oh < 3; ++oh) {
            for (int64_t ow = 0; ow < 3; ++ow) {
              const int64_t h = oh * 2 - 1 + kh, v = ow * 2 - 1 + kw;
              if (h >= 0 && h < 5 && v >= 0 && v < 5) acc += xs(c, h, v) * dy.data<double>()[(m * 3 + oh) * 3 + ow];
            }
          }
          dw.data<double>()[((m * 2 + c) * 3 + kh) * 3 + kw] = acc;
        }
      }
    }
  }
  a.kernel_shape = {3, 3};
  expect_tensors_near(run_reference(make_op(fb::OpType::ConvGradWeight, a), {x, dy}), dw, kRtol, kAtol,
                      "ConvGradWeight");
}

TEST(ReferenceF64, SoftmaxAndLogSoftmaxAlongAxis0) {
  Tensor x = rnd64({4, 3}, 11, -3, 3);
  Tensor soft = Tensor::zeros(DType::F64, {4, 3}), log_soft = Tensor::zeros(DType::F64, {4, 3});
  for (int64_t j = 0; j < 3; ++j) {
    double sum = 0;
    for (int64_t i = 0; i < 4; ++i) sum += std::exp(x.data<double>()[i * 3 + j]);
    for (int64_t i = 0; i < 4; ++i) {
      soft.data<double>()[i * 3 + j] = std::exp(x.data<double>()[i * 3 + j]) / sum;
      log_soft.data<double>()[i * 3 + j] = x.data<double>()[i * 3 + j] - std::log(sum);
    }
  }
  fb::AxisAttrsT axis;
  axis.axis = 0;
  expect_tensors_near(run_reference(make_op(fb::OpType::Softmax, axis), {x}), soft, kRtol, kAtol, "Softmax");
  expect_tensors_near(run_reference(make_op(fb::OpType::LogSoftmax, axis), {x}), log_soft, kRtol, kAtol, "LogSoftmax");
}

TEST(ReferenceF64, ReduceMeanAndPools) {
  Tensor x = rnd64({1, 2, 4, 4}, 12);
  const double* d = x.data<double>();
  // ReduceMean over the spatial axes, and 2x2 stride-2 max and average pools.
  Tensor mean = Tensor::zeros(DType::F64, {1, 2, 1, 1});
  Tensor max = Tensor::zeros(DType::F64, {1, 2, 2, 2}), avg = Tensor::zeros(DType::F64, {1, 2, 2, 2});
  for (int64_t c = 0; c < 2; ++c) {
    double sum = 0;
    for (int64_t i = 0; i < 16; ++i) sum += d[c * 16 + i];
    mean.data<double>()[c] = sum / 16.0;
    for (int64_t oh = 0; oh < 2; ++oh) {
      for (int64_t ow = 0; ow < 2; ++ow) {
        double best = -std::numeric_limits<double>::infinity(), total = 0;
        for (int64_t kh = 0; kh < 2; ++kh) {
          for (int64_t kw = 0; kw < 2; ++kw) {
            const double v = d[c * 16 + (oh * 2 + kh) * 4 + ow * 2 + kw];
            best = std::max(best, v);
            total += v;
          }
        }
        max.data<double>()[(c * 2 + oh) * 2 + ow] = best;
        avg.data<double>()[(c * 2 + oh) * 2 + ow] = total / 4.0;
      }
    }
  }
  auto axes = Tensor::from_vector<int64_t>({2}, {2, 3});
  expect_tensors_near(run_reference(make_op(fb::OpType::ReduceMean), {x, axes}), mean, kRtol, kAtol, "ReduceMean");
  const PoolParams p{.kernel = {2, 2}, .strides = {2, 2}};
  expect_tensors_near(run_reference(pool_op(fb::OpType::MaxPool, p), {x}), max, kRtol, kAtol, "MaxPool");
  expect_tensors_near(run_reference(pool_op(fb::OpType::AveragePool, p), {x}), avg, kRtol, kAtol, "AveragePool");
}

TEST(ReferenceF64, LayerNormalization) {
  Tensor x = rnd64({3, 5}, 13), scale = rnd64({5}, 14), bias = rnd64({5}, 15);
  Tensor want = Tensor::zeros(DType::F64, {3, 5});
  fb::NormAttrsT a;
  a.axis = -1;
  a.epsilon = 1e-5f;
  for (int64_t r = 0; r < 3; ++r) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < 5; ++j) mean += x.data<double>()[r * 5 + j] / 5.0;
    for (int64_t j = 0; j < 5; ++j) var += std::pow(x.data<double>()[r * 5 + j] - mean, 2) / 5.0;
    for (int64_t j = 0; j < 5; ++j) {
      want.data<double>()[r * 5 + j] = (x.data<double>()[r * 5 + j] - mean) / std::sqrt(var + double{a.epsilon}) *
                                           scale.data<double>()[j] +
                                       bias.data<double>()[j];
    }
  }
  expect_tensors_near(run_reference(make_op(fb::OpType::LayerNormalization, a), {x, scale, bias}), want, kRtol, kAtol);
}

TEST(ReferenceF64, MixedF32AndF64InputsAreRefused) {
  auto out = run_op(make_op(fb::OpType::Gemm), {rnd64({2, 3}, 16), random_tensor(DType::F32, {3, 2}, 17)},
                    Impl::kReference);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("f32"), std::string::npos) << out.status().message();
}

}  // namespace
}  // namespace mote::test
