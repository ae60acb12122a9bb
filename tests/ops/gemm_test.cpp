#include <string>
#include <vector>

#include "tests/ops/fused_activation_util.hpp"
#include "tests/support/op_attrs.hpp"
#include "tests/support/op_test_util.hpp"

namespace mote::test {
namespace {

constexpr double kRtol = 1e-4;
constexpr double kAtol = 1e-4;

void check_gemm(int64_t m, int64_t n, int64_t k, const fb::GemmAttrsT& a, std::optional<Shape> c,
                const fb::FusedActivationT* act = nullptr, uint32_t seed = 1) {
  fb::OpT op = make_op(fb::OpType::Gemm, a);
  if (act) op = with_fused(std::move(op), *act);
  Shape sa = a.trans_a ? Shape{k, m} : Shape{m, k};
  Shape sb = a.trans_b ? Shape{n, k} : Shape{k, n};
  Inputs inputs = {random_tensor(DType::F32, sa, seed), random_tensor(DType::F32, sb, seed + 1)};
  if (c) inputs.push_back(random_tensor(DType::F32, *c, seed + 2));
  SCOPED_TRACE("M " + std::to_string(m) + " N " + std::to_string(n) + " K " + std::to_string(k) +
               (a.trans_a ? " trans_a" : "") + (a.trans_b ? " trans_b" : "") +
               " C " + (c ? shape_to_string(*c) : std::string("none")) + (act ? " fused " + fused_name(*act) : ""));
  expect_cpu_matches_reference(op, inputs, kRtol, kAtol);
}

TEST(GemmOps, CpuMatchesReferenceOnOddSizes) {
  uint32_t seed = 1;
  for (int64_t m : odd_sizes()) {
    for (int64_t n : odd_sizes()) {
      for (int64_t k : {1, 13, 127}) {
        for (int t = 0; t < 4; ++t) {
          check_gemm(m, n, k, gemm_attrs(1.0f, 1.0f, t & 1, t & 2), Shape{n}, nullptr, seed++);
        }
      }
    }
  }
}

// Every way C can broadcast to [M, N], and alpha / beta away from 1.
TEST(GemmOps, CpuMatchesReferenceForEveryBroadcastOfC) {
  const int64_t m = 13, n = 7, k = 5;
  const std::vector<std::optional<Shape>> cs = {std::nullopt, Shape{}, Shape{1}, Shape{n}, Shape{1, 1},
                                                Shape{1, n}, Shape{m, 1}, Shape{m, n}};
  for (const auto& c : cs) {
    for (const auto& a : {gemm_attrs(), gemm_attrs(0.5f, 2.0f), gemm_attrs(-1.5f, 0.0f, true, false),
                          gemm_attrs(1.0f, -0.25f, false, true), gemm_attrs(0.0f, 1.0f)}) {
      check_gemm(m, n, k, a, c);
    }
  }
  // One row or one column: the vector forms of C coincide with the full one.
  for (const auto& c : {Shape{1, 9}, Shape{9}, Shape{1, 1}}) check_gemm(1, 9, 6, gemm_attrs(1.0f, 0.5f), c);
  for (const auto& c : {Shape{9, 1}, Shape{1}, Shape{1, 1}}) check_gemm(9, 1, 6, gemm_attrs(1.0f, 0.5f), c);
}

TEST(GemmOps, CpuMatchesReferenceOnLargeProducts) {
  check_gemm(200, 300, 256, gemm_attrs(1.0f, 1.0f, false, true), Shape{300});
  check_gemm(64, 1000, 129, gemm_attrs(0.75f, 1.0f, true, false), Shape{64, 1000});
  check_gemm(1, 1000, 512, gemm_attrs(1.0f, 1.0f, false, true), Shape{1, 1000});  // one row: gemv
  check_gemm(0, 5, 3, gemm_attrs(), Shape{5});
  check_gemm(4, 5, 0, gemm_attrs(), Shape{4, 5});
}

TEST(GemmOps, FusedActivationsCpuMatchReference) {
  for (const auto& act : all_fused_activations()) {
    check_gemm(13, 17, 11, gemm_attrs(1.0f, 1.0f, false, true), Shape{17}, &act);
    check_gemm(33, 65, 40, gemm_attrs(0.5f, 1.0f), Shape{33, 65}, &act);
    check_gemm(7, 3, 5, gemm_attrs(), std::nullopt, &act);
  }
}

// Expected values from numpy:
//   a = ((np.arange(6) % 7) - 3).reshape(2, 3) * 0.5
//   b = ((np.arange(12) % 5) - 2).reshape(4, 3) * 0.25
//   c = [0.5, -1.0, 0.25, 2.0]
//   0.5 * a @ b.T + 2.0 * c
TEST(GemmOps, ReferenceMatchesNumpy) {
  Tensor a = Tensor::from_vector<float>({2, 3}, {-1.5f, -1.0f, -0.5f, 0.0f, 0.5f, 1.0f});
  std::vector<float> bv(12);
  for (int i = 0; i < 12; ++i) bv[i] = static_cast<float>((i % 5) - 2) * 0.25f;
  Tensor b = Tensor::from_vector<float>({4, 3}, bv);
  Tensor c = Tensor::from_vector<float>({4}, {0.5f, -1.0f, 0.25f, 2.0f});
  auto y = run_op(make_op(fb::OpType::Gemm, gemm_attrs(0.5f, 2.0f, false, true)), {a, b, c}, Impl::kReference);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  Tensor expected =
      Tensor::from_vector<float>({2, 4}, {1.5f, -2.3125f, 0.625f, 3.9375f, 0.9375f, -2.125f, 0.625f, 3.75f});
  expect_tensors_near((*y)[0], expected, 1e-6, 1e-6);
}

// Expected values from numpy, trans_a and a column C:
//   at = ((np.arange(6) % 4) - 1).reshape(2, 3) * 1.5   (A stored as [K, M])
//   b = [[1, -2], [0.5, 3]]; c = [[1], [-1], [2]]
//   at.T @ b + 0.5 * c
TEST(GemmOps, ReferenceMatchesNumpyTransposedA) {
  Tensor at = Tensor::from_vector<float>({2, 3}, {-1.5f, 0.0f, 1.5f, 3.0f, -1.5f, 0.0f});
  Tensor b = Tensor::from_vector<float>({2, 2}, {1.0f, -2.0f, 0.5f, 3.0f});
  Tensor c = Tensor::from_vector<float>({3, 1}, {1.0f, -1.0f, 2.0f});
  auto y = run_op(make_op(fb::OpType::Gemm, gemm_attrs(1.0f, 0.5f, true, false)), {at, b, c}, Impl::kReference);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  expect_tensors_near((*y)[0], Tensor::from_vector<float>({3, 2}, {0.5f, 12.5f, -1.25f, -5.0f, 2.5f, -2.0f}), 1e-6,
                      1e-6);
}

// Expected values from numpy, one formula per fused activation applied to
// x @ [[1]] (a 1x1 identity product, so the output is the activation of x):
//   x = [-7, -2.5, -0.5, 0, 0.25, 1, 3.5, 8]; s = 1 / (1 + np.exp(-x))
//   relu np.maximum(x, 0); clip np.clip(x, -0.5, 2); hardswish
//   x * np.clip(x / 6 + 0.5, 0, 1); sigmoid s; leakyrelu(0.1)
//   np.where(x >= 0, x, 0.1 * x); silu x * s
TEST(GemmOps, ReferenceFusedActivationsMatchNumpy) {
  const std::vector<float> x = {-7.0f, -2.5f, -0.5f, 0.0f, 0.25f, 1.0f, 3.5f, 8.0f};
  struct Case {
    fb::FusedActivationT act;
    std::vector<float> expected;
  };
  const std::vector<Case> cases = {
      {fused_activation(fb::ActivationKind::Relu), {0.0f, 0.0f, 0.0f, 0.0f, 0.25f, 1.0f, 3.5f, 8.0f}},
      {fused_activation(fb::ActivationKind::Clip, 0.0f, -0.5f, 2.0f),
       {-0.5f, -0.5f, -0.5f, 0.0f, 0.25f, 1.0f, 2.0f, 2.0f}},
      {fused_activation(fb::ActivationKind::HardSwish),
       {-0.0f, -0.2083333283662796f, -0.2083333283662796f, 0.0f, 0.1354166716337204f, 0.6666666865348816f, 3.5f, 8.0f}},
      {fused_activation(fb::ActivationKind::Sigmoid),
       {0.0009110511746257544f, 0.07585818320512772f, 0.3775406777858734f, 0.5f, 0.562176525592804f,
        0.7310585975646973f, 0.970687747001648f, 0.9996646642684937f}},
      {fused_activation(fb::ActivationKind::LeakyRelu, 0.1f),
       {-0.699999988079071f, -0.25f, -0.05000000074505806f, 0.0f, 0.25f, 1.0f, 3.5f, 8.0f}},
      {fused_activation(fb::ActivationKind::SiLU),
       {-0.006377358455210924f, -0.189645454287529f, -0.1887703388929367f, 0.0f, 0.140544131398201f,
        0.7310585975646973f, 3.397407293319702f, 7.997317314147949f}},
  };
  Tensor a = Tensor::from_vector<float>({8, 1}, x);
  Tensor one = Tensor::from_vector<float>({1, 1}, {1.0f});
  for (const Case& c : cases) {
    SCOPED_TRACE(fused_name(c.act));
    fb::OpT op = with_fused(make_op(fb::OpType::Gemm, gemm_attrs()), c.act);
    for (Impl impl : {Impl::kReference, Impl::kCpu}) {
      auto y = run_op(op, {a, one}, impl);
      ASSERT_TRUE(y.ok()) << y.status().to_string();
      expect_tensors_near((*y)[0], Tensor::from_vector<float>({8, 1}, c.expected), 1e-6, 1e-7,
                          std::string(impl_name(impl)));
    }
  }
}

void expect_shape_error(const Shape& a, const Shape& b, std::optional<Shape> c, const fb::GemmAttrsT& at,
                        const std::string& words, DType dtype = DType::F32) {
  Inputs inputs = {Tensor::zeros(dtype, a), Tensor::zeros(DType::F32, b)};
  if (c) inputs.push_back(Tensor::zeros(DType::F32, *c));
  auto result = run_op(make_op(fb::OpType::Gemm, at), inputs, Impl::kReference);
  ASSERT_FALSE(result.ok()) << "A " << shape_to_string(a) << " B " << shape_to_string(b);
  EXPECT_NE(result.status().message().find(words), std::string::npos) << result.status().message();
}

TEST(GemmOps, ShapeFunctionRejectsBadModels) {
  expect_shape_error({2, 3, 4}, {4, 5}, std::nullopt, gemm_attrs(), "input A");
  expect_shape_error({3}, {3, 5}, std::nullopt, gemm_attrs(), "input A");
  expect_shape_error({2, 3}, {5}, std::nullopt, gemm_attrs(), "input B");
  expect_shape_error({2, 3}, {4, 5}, std::nullopt, gemm_attrs(), "inner dimensions");
  expect_shape_error({2, 3}, {3, 5}, std::nullopt, gemm_attrs(1.0f, 1.0f, true, false), "inner dimensions");
  expect_shape_error({2, 3}, {3, 5}, Shape{4}, gemm_attrs(), "input C");
  expect_shape_error({2, 3}, {3, 5}, Shape{3, 5}, gemm_attrs(), "input C");
  expect_shape_error({2, 3}, {3, 5}, Shape{1, 2, 5}, gemm_attrs(), "input C");
  expect_shape_error({2, 3}, {3, 5}, std::nullopt, gemm_attrs(), "floating dtype", DType::I64);
  expect_shape_error({2, 3}, {3, 5}, std::nullopt, gemm_attrs(), "must match", DType::F16);
}

}  // namespace
}  // namespace mote::test
