// Unary elementwise ops: optimised kernels against the reference, the
// reference against values computed with numpy, and shape-function errors.
#include <cmath>
#include <limits>

#include "tests/support/op_test_util.hpp"
#include "tests/support/simd_targets.hpp"

namespace mote::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

fb::OpT activation_op(fb::OpType type, float alpha, float beta = 0.0f, float gamma = 0.0f,
                      bool approximate_tanh = false) {
  fb::ActivationAttrsT a;
  a.alpha = alpha;
  a.beta = beta;
  a.gamma = gamma;
  a.approximate_tanh = approximate_tanh;
  return make_op(type, a);
}

// How closely the optimised float kernels must follow the reference, which
// computes in double with <cmath> and rounds once:
//  - correctly rounded operations (abs, floor, sqrt, 1/x, clamps...): 1e-6;
//  - hwy/contrib/math Exp and Log (at most 4 ulp): 2e-6;
//  - composites of those (sigmoid, tanh, erf and gelu, softplus, elu, selu,
//    sin, cos): 1e-5 relative with 1e-6 absolute, which judges results near
//    zero (sin and cos at their roots, erf of tiny x) by absolute error.
struct FloatCase {
  fb::OpT op;
  float lo, hi;  // random inputs are uniform in [lo, hi)
  double rtol, atol;
};

std::vector<FloatCase> float_cases() {
  using T = fb::OpType;
  constexpr double kExact = 1e-6, kHwy = 2e-6, kComposite = 1e-5;
  return {
      {make_op(T::Sqrt), 0.0f, 100.0f, kExact, 0},
      {make_op(T::Exp), -80.0f, 80.0f, kHwy, 0},
      {make_op(T::Log), 0.001f, 1000.0f, kHwy, 1e-7},
      {make_op(T::Abs), -8.0f, 8.0f, 0, 0},
      {make_op(T::Neg), -8.0f, 8.0f, 0, 0},
      {make_op(T::Reciprocal), 0.01f, 100.0f, kExact, 0},
      {make_op(T::Relu), -8.0f, 8.0f, 0, 0},
      {make_op(T::LeakyRelu), -8.0f, 8.0f, kExact, 0},
      {activation_op(T::LeakyRelu, 0.3f), -8.0f, 8.0f, kExact, 0},
      {make_op(T::Sigmoid), -20.0f, 20.0f, kComposite, 1e-6},
      {make_op(T::Tanh), -10.0f, 10.0f, kComposite, 1e-6},
      {make_op(T::HardSigmoid), -8.0f, 8.0f, kExact, 1e-7},
      {activation_op(T::HardSigmoid, 0.5f, 0.25f), -8.0f, 8.0f, kExact, 1e-7},
      {make_op(T::HardSwish), -8.0f, 8.0f, kExact, 1e-7},
      {make_op(T::Elu), -10.0f, 10.0f, kComposite, 1e-6},
      {activation_op(T::Elu, 2.0f), -10.0f, 10.0f, kComposite, 1e-6},
      {make_op(T::Selu), -10.0f, 10.0f, kComposite, 1e-6},
      {activation_op(T::Selu, 2.0f, 0.0f, 3.0f), -10.0f, 10.0f, kComposite, 1e-6},
      {make_op(T::Gelu), -6.0f, 6.0f, kComposite, 1e-6},
      {activation_op(T::Gelu, 0.0f, 0.0f, 0.0f, true), -6.0f, 6.0f, kComposite, 1e-6},
      {make_op(T::Erf), -5.0f, 5.0f, kComposite, 1e-6},
      {make_op(T::Softplus), -20.0f, 20.0f, kComposite, 1e-6},
      {make_op(T::Sin), -100.0f, 100.0f, kComposite, 1e-6},
      {make_op(T::Cos), -100.0f, 100.0f, kComposite, 1e-6},
      {make_op(T::Floor), -100.0f, 100.0f, 0, 0},
      {make_op(T::Ceil), -100.0f, 100.0f, 0, 0},
      {make_op(T::Round), -100.0f, 100.0f, 0, 0},
      {make_op(T::Sign), -2.0f, 2.0f, 0, 0},
      {make_op(T::Clip), -8.0f, 8.0f, 0, 0},
  };
}

TEST(UnaryOps, FloatCpuMatchesReferenceOnOddSizes) {
  for_each_simd_target([] {
    for (const FloatCase& c : float_cases()) {
      SCOPED_TRACE(op_type_name(c.op.type));
      uint32_t seed = 1;
      for (int64_t n : odd_sizes()) {
        expect_cpu_matches_reference(c.op, {random_tensor(DType::F32, {2, n}, seed++, c.lo, c.hi)}, c.rtol, c.atol);
      }
    }
  });
  // Several parallel chunks, each with a vector tail.
  for (const FloatCase& c : float_cases()) {
    SCOPED_TRACE(op_type_name(c.op.type));
    expect_cpu_matches_reference(c.op, {random_tensor(DType::F32, {40013}, 5, c.lo, c.hi)}, c.rtol, c.atol);
  }
}

// The values the SIMD paths special-case or that lie outside hwy's documented
// ranges: NaN, infinities, signed zeros, subnormals, exp's overflow
// threshold, erf's saturation point, sin/cos past their fast-path range.
TEST(UnaryOps, FloatCpuMatchesReferenceOnSpecialValues) {
  const std::vector<float> special = {kNaN,  kInf,     -kInf, 0.0f,  -0.0f,   1e-40f,  -1e-40f, 1e-30f,
                                      1e30f, -1e30f,   88.5f, 89.5f, -87.0f,  -104.5f, -200.0f, 3.9f,
                                      3.95f, -3.95f,   0.5f,  -0.5f, 1.5f,    2.5f,    -2.5f,   1.0f,
                                      -1.0f, 39001.0f, -1e5f, 1e7f,  0.99999f};
  Tensor x = Tensor::from_vector<float>({static_cast<int64_t>(special.size())}, special);
  for_each_simd_target([&] {
    for (const FloatCase& c : float_cases()) {
      SCOPED_TRACE(op_type_name(c.op.type));
      expect_cpu_matches_reference(c.op, {x}, c.rtol, c.atol);
    }
  });
}

// Erf is this project's own polynomial: check it densely over the range where
// it switches between its two pieces and saturates.
TEST(UnaryOps, ErfCpuIsWithinTwoUlpEverywhere) {
  std::vector<float> grid;
  for (float v = -4.5f; v <= 4.5f; v += 0.0007f) grid.push_back(v);
  for (float v = 1e-6f; v < 1.0f; v *= 1.5f) grid.push_back(v);
  Tensor x = Tensor::from_vector<float>({static_cast<int64_t>(grid.size())}, grid);
  for_each_simd_target([&] { expect_cpu_matches_reference(make_op(fb::OpType::Erf), {x}, 2.4e-7, 0); });
}

struct NumpyCase {
  fb::OpT op;
  std::vector<float> x, expected;
  const char* numpy;
};

// Each expected row was computed with numpy 2 in float64 from the float32
// inputs and rounded to float32; the expression is given beside it
// (erf = np.vectorize(math.erf), numpy has none).
TEST(UnaryOps, FloatReferenceMatchesNumpy) {
  using T = fb::OpType;
  const std::vector<float> x = {-3.5f, -1.0f, -0.25f, 0.0f, 0.5f, 1.5f, 2.5f, 4.0f};
  const std::vector<float> positive = {0.25f, 0.5f, 1.0f, 2.0f, 10.0f, 100.0f};
  const std::vector<float> halves = {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 2.4000001f, -2.5999999f};
  const std::vector<NumpyCase> cases = {
      {make_op(T::Sqrt), positive, {0.5f, 0.707106769f, 1.0f, 1.41421354f, 3.1622777f, 10.0f}, "np.sqrt(x)"},
      {make_op(T::Exp),
       x,
       {0.0301973838f, 0.36787945f, 0.778800786f, 1.0f, 1.64872122f, 4.48168898f, 12.1824942f, 54.5981483f},
       "np.exp(x)"},
      {make_op(T::Log),
       positive,
       {-1.38629436f, -0.693147182f, 0.0f, 0.693147182f, 2.30258512f, 4.60517025f},
       "np.log(x)"},
      {make_op(T::Abs), x, {3.5f, 1.0f, 0.25f, 0.0f, 0.5f, 1.5f, 2.5f, 4.0f}, "np.abs(x)"},
      {make_op(T::Neg), x, {3.5f, 1.0f, 0.25f, -0.0f, -0.5f, -1.5f, -2.5f, -4.0f}, "np.negative(x)"},
      {make_op(T::Reciprocal), positive, {4.0f, 2.0f, 1.0f, 0.5f, 0.100000001f, 0.00999999978f}, "1 / x"},
      {make_op(T::Relu), x, {0.0f, 0.0f, 0.0f, 0.0f, 0.5f, 1.5f, 2.5f, 4.0f}, "np.maximum(x, 0)"},
      {make_op(T::LeakyRelu),
       x,
       {-0.0350000001f, -0.00999999978f, -0.00249999994f, 0.0f, 0.5f, 1.5f, 2.5f, 4.0f},
       "np.where(x < 0, 0.01 * x, x)"},
      {activation_op(T::LeakyRelu, 0.3f),
       x,
       {-1.04999995f, -0.300000012f, -0.075000003f, 0.0f, 0.5f, 1.5f, 2.5f, 4.0f},
       "np.where(x < 0, 0.3 * x, x)"},
      {make_op(T::Sigmoid),
       x,
       {0.0293122306f, 0.268941432f, 0.437823504f, 0.5f, 0.622459352f, 0.817574501f, 0.924141824f, 0.982013762f},
       "1 / (1 + np.exp(-x))"},
      {make_op(T::Tanh),
       x,
       {-0.998177886f, -0.761594176f, -0.244918659f, 0.0f, 0.462117165f, 0.905148268f, 0.986614287f, 0.999329329f},
       "np.tanh(x)"},
      {make_op(T::HardSigmoid),
       x,
       {0.0f, 0.300000012f, 0.449999988f, 0.5f, 0.600000024f, 0.800000012f, 1.0f, 1.0f},
       "np.clip(0.2 * x + 0.5, 0, 1)"},
      {activation_op(T::HardSigmoid, 0.5f, 0.25f),
       x,
       {0.0f, 0.0f, 0.125f, 0.25f, 0.5f, 1.0f, 1.0f, 1.0f},
       "np.clip(0.5 * x + 0.25, 0, 1)"},
      {make_op(T::HardSwish),
       x,
       {-0.0f, -0.333333343f, -0.114583336f, 0.0f, 0.291666657f, 1.125f, 2.29166675f, 4.0f},
       "x * np.clip(x / 6 + 0.5, 0, 1)"},
      {make_op(T::Elu),
       x,
       {-0.969802618f, -0.63212055f, -0.221199214f, 0.0f, 0.5f, 1.5f, 2.5f, 4.0f},
       "np.where(x > 0, x, np.expm1(x))"},
      {activation_op(T::Elu, 2.0f),
       x,
       {-1.93960524f, -1.2642411f, -0.442398429f, 0.0f, 0.5f, 1.5f, 2.5f, 4.0f},
       "np.where(x > 0, x, 2 * np.expm1(x))"},
      {make_op(T::Selu),
       x,
       {-1.70500934f, -1.11133075f, -0.388890207f, 0.0f, 0.525350511f, 1.57605147f, 2.62675238f, 4.20280409f},
       "1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x))"},
      {activation_op(T::Selu, 2.0f, 0.0f, 3.0f),
       x,
       {-5.81881571f, -3.79272342f, -1.32719529f, 0.0f, 1.5f, 4.5f, 7.5f, 12.0f},
       "3 * np.where(x > 0, x, 2 * np.expm1(x))"},
      {make_op(T::Gelu),
       x,
       {-0.000814201776f, -0.158655256f, -0.100323416f, 0.0f, 0.345731229f, 1.39978921f, 2.48447585f, 3.9998734f},
       "0.5 * x * (1 + erf(x / np.sqrt(2)))"},
      {activation_op(T::Gelu, 0.0f, 0.0f, 0.0f, true),
       x,
       {-0.000616197649f, -0.158808008f, -0.100324646f, 0.0f, 0.345714003f, 1.39957154f, 2.48491573f, 3.99992967f},
       "0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))"},
      {make_op(T::Erf),
       x,
       {-0.999999285f, -0.842700779f, -0.276326388f, 0.0f, 0.520499885f, 0.966105163f, 0.999593019f, 1.0f},
       "erf(x)"},
      {make_op(T::Softplus),
       x,
       {0.0297504179f, 0.313261688f, 0.575939417f, 0.693147182f, 0.974076986f, 1.70141327f, 2.57888985f, 4.01814985f},
       "np.log1p(np.exp(x))"},
      {make_op(T::Sin),
       x,
       {0.350783229f, -0.841470957f, -0.247403964f, 0.0f, 0.47942555f, 0.997494996f, 0.598472118f, -0.756802499f},
       "np.sin(x)"},
      {make_op(T::Cos),
       x,
       {-0.93645668f, 0.540302277f, 0.968912423f, 1.0f, 0.87758255f, 0.070737198f, -0.801143587f, -0.653643608f},
       "np.cos(x)"},
      {make_op(T::Floor), halves, {-3.0f, -2.0f, -1.0f, 0.0f, 1.0f, 2.0f, 2.0f, -3.0f}, "np.floor(x)"},
      {make_op(T::Ceil), halves, {-2.0f, -1.0f, -0.0f, 1.0f, 2.0f, 3.0f, 3.0f, -2.0f}, "np.ceil(x)"},
      {make_op(T::Round), halves, {-2.0f, -2.0f, -0.0f, 0.0f, 2.0f, 2.0f, 2.0f, -3.0f}, "np.round(x), ties to even"},
      {make_op(T::Sign), x, {-1.0f, -1.0f, -1.0f, 0.0f, 1.0f, 1.0f, 1.0f, 1.0f}, "np.sign(x)"},
  };
  for (const NumpyCase& c : cases) {
    SCOPED_TRACE(std::string(op_type_name(c.op.type)) + ": " + c.numpy);
    const int64_t n = static_cast<int64_t>(c.x.size());
    auto y = run_op(c.op, {Tensor::from_vector<float>({n}, c.x)}, Impl::kReference);
    ASSERT_TRUE(y.ok()) << y.status().to_string();
    expect_tensors_near((*y)[0], Tensor::from_vector<float>({n}, c.expected), 1e-6, 1e-7);
  }
}

Tensor scalar_f32(float v) { return Tensor::from_vector<float>({}, {v}); }

TEST(UnaryOps, ClipBoundsMatchNumpy) {
  const std::vector<float> x = {-3.5f, -1.0f, -0.25f, 0.0f, 0.5f, 1.5f, 2.5f, 4.0f};
  Tensor input = Tensor::from_vector<float>({8}, x);
  struct Case {
    std::optional<Tensor> lo, hi;
    std::vector<float> expected;
    const char* numpy;
  };
  const std::vector<Case> cases = {
      {scalar_f32(-1.0f), scalar_f32(2.0f), {-1.0f, -1.0f, -0.25f, 0.0f, 0.5f, 1.5f, 2.0f, 2.0f}, "np.clip(x, -1, 2)"},
      {scalar_f32(0.0f), std::nullopt, {0.0f, 0.0f, 0.0f, 0.0f, 0.5f, 1.5f, 2.5f, 4.0f}, "np.clip(x, 0, None)"},
      {std::nullopt, std::nullopt, x, "x (no bounds)"},
      {scalar_f32(3.0f), scalar_f32(1.0f), std::vector<float>(8, 1.0f), "np.minimum(np.maximum(x, 3), 1)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.numpy);
    auto y = run_op(make_op(fb::OpType::Clip), {input, c.lo, c.hi}, Impl::kReference);
    ASSERT_TRUE(y.ok()) << y.status().to_string();
    expect_tensors_near((*y)[0], Tensor::from_vector<float>({8}, c.expected), 0, 0);
    expect_cpu_matches_reference(make_op(fb::OpType::Clip), {input, c.lo, c.hi}, 0, 0);
  }
  // A NaN bound bounds nothing.
  expect_cpu_matches_reference(make_op(fb::OpType::Clip), {input, scalar_f32(kNaN), scalar_f32(1.0f)}, 0, 0);
  // Only a max, given as a one-element [1] tensor; NaN passes through.
  Tensor with_nan = Tensor::from_vector<float>({3}, {kNaN, 5.0f, -5.0f});
  auto y = run_op(make_op(fb::OpType::Clip), {with_nan, std::nullopt, Tensor::from_vector<float>({1}, {1.0f})},
                  Impl::kReference);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  expect_tensors_near((*y)[0], Tensor::from_vector<float>({3}, {kNaN, 1.0f, -5.0f}), 0, 0);
}

TEST(UnaryOps, IntegerCpuMatchesReference) {
  for (fb::OpType type : {fb::OpType::Abs, fb::OpType::Neg, fb::OpType::Sign}) {
    SCOPED_TRACE(op_type_name(type));
    for (DType dtype : {DType::I32, DType::I64}) {
      for (int64_t n : odd_sizes()) {
        expect_cpu_matches_reference(make_op(type), {random_tensor(dtype, {3, n}, 5, -1000, 1000)}, 0, 0);
      }
    }
  }
  for (int64_t n : odd_sizes()) {
    Tensor x = random_tensor(DType::I64, {n}, 9, -100, 100);
    expect_cpu_matches_reference(make_op(fb::OpType::Clip),
                                 {x, Tensor::from_vector<int64_t>({}, {-7}), Tensor::from_vector<int64_t>({}, {42})}, 0,
                                 0);
    expect_cpu_matches_reference(make_op(fb::OpType::Clip),
                                 {x.clone(), std::nullopt, Tensor::from_vector<int64_t>({}, {3})}, 0, 0);
  }
}

// np.abs / np.negative / np.sign on int32; the most
// negative value wraps to itself under abs and negation, as in numpy.
TEST(UnaryOps, IntegerReferenceMatchesNumpy) {
  const std::vector<int32_t> x = {-7, -1, 0, 3, 2147483647, -2147483647 - 1};
  struct Case {
    fb::OpType type;
    std::vector<int32_t> expected;
  };
  const std::vector<Case> cases = {
      {fb::OpType::Abs, {7, 1, 0, 3, 2147483647, -2147483647 - 1}},
      {fb::OpType::Neg, {7, 1, 0, -3, -2147483647, -2147483647 - 1}},
      {fb::OpType::Sign, {-1, -1, 0, 1, 1, -1}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(op_type_name(c.type));
    auto y = run_op(make_op(c.type), {Tensor::from_vector<int32_t>({6}, x)}, Impl::kReference);
    ASSERT_TRUE(y.ok()) << y.status().to_string();
    EXPECT_EQ((*y)[0].to_int64s(), Tensor::from_vector<int32_t>({6}, c.expected).to_int64s());
  }
  // np.clip(np.array([-5, 0, 9], np.int32), -2, 4)
  auto y = run_op(make_op(fb::OpType::Clip),
                  {Tensor::from_vector<int32_t>({3}, {-5, 0, 9}), Tensor::from_vector<int32_t>({}, {-2}),
                   Tensor::from_vector<int32_t>({}, {4})},
                  Impl::kReference);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  EXPECT_EQ((*y)[0].to_int64s(), (std::vector<int64_t>{-2, 0, 4}));
}

TEST(UnaryOps, NotMatchesNumpy) {
  // np.logical_not([True, False, False, True])
  auto y =
      run_op(make_op(fb::OpType::Not), {Tensor::from_vector<bool>({4}, {true, false, false, true})}, Impl::kReference);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  expect_tensors_near((*y)[0], Tensor::from_vector<bool>({4}, {false, true, true, false}), 0, 0);
  for (int64_t n : odd_sizes()) {
    expect_cpu_matches_reference(make_op(fb::OpType::Not), {random_tensor(DType::Bool, {n, 5}, 3)}, 0, 0);
  }
}

TEST(UnaryOps, ShapeFunctionRejectsBadDtypes) {
  Tensor ints = Tensor::from_vector<int32_t>({2}, {1, 2});
  Tensor floats = Tensor::from_vector<float>({2}, {1.0f, 2.0f});
  Tensor bools = Tensor::from_vector<bool>({2}, {true, false});
  EXPECT_FALSE(run_op(make_op(fb::OpType::Sqrt), {ints}, Impl::kReference).ok());
  EXPECT_FALSE(run_op(make_op(fb::OpType::Gelu), {ints}, Impl::kCpu).ok());
  EXPECT_FALSE(run_op(make_op(fb::OpType::Abs), {bools}, Impl::kCpu).ok());
  EXPECT_FALSE(run_op(make_op(fb::OpType::Relu), {ints}, Impl::kCpu).ok());
  EXPECT_FALSE(run_op(make_op(fb::OpType::Not), {floats}, Impl::kCpu).ok());
  // Clip bounds: dtype must match the input, and hold one value.
  EXPECT_FALSE(run_op(make_op(fb::OpType::Clip), {floats, ints}, Impl::kCpu).ok());
  EXPECT_FALSE(run_op(make_op(fb::OpType::Clip), {floats, std::nullopt, floats}, Impl::kCpu).ok());
  auto ok = run_op(make_op(fb::OpType::Clip), {floats, scalar_f32(0.0f)}, Impl::kCpu);
  EXPECT_TRUE(ok.ok()) << ok.status().to_string();
}

}  // namespace
}  // namespace mote::test
