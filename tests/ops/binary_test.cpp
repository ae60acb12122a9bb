// Binary elementwise ops, variadic Min/Max and Where: optimised kernels
// against the reference over broadcasting layouts, the reference against
// values computed with numpy, and shape-function errors.
#include <cmath>
#include <limits>

#include "tests/support/op_test_util.hpp"
#include "tests/support/simd_targets.hpp"

namespace mote::test {
namespace {

using T = fb::OpType;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Shape pairs covering every fast path of the broadcast iterator (same
// shape, scalar either side, row and channel broadcast, both sides
// broadcast, inner-dimension broadcast, size-1 and empty dims) with n from
// odd_sizes() in the innermost place.
std::vector<std::pair<Shape, Shape>> broadcast_pairs(int64_t n) {
  return {
      {{2, n}, {2, n}},
      {{2, n}, {}},
      {{}, {2, n}},
      {{3, n}, {1}},
      {{3, n}, {n}},
      {{2, 3, n, 5}, {3, 1, 1}},
      {{2, 3, 5, n}, {2, 3, 1, 1}},
      {{n, 1}, {1, 7}},
      {{2, 1, n}, {1, 3, 1}},
      {{2, n, 3}, {2, 1, 3}},
      {{1, n, 1}, {n, 1}},
      {{0, n}, {n}},
  };
}

// Sizes that give the pool several chunks, each ending mid-row.
std::vector<std::pair<Shape, Shape>> large_pairs() {
  return {{{64, 1031}, {1031}}, {{4, 16, 33, 35}, {16, 1, 1}}, {{40013}, {}}, {{7, 1, 4099}, {1, 5, 1}}};
}

// Values in [-4, 4]: integers for int dtypes, so Div and comparisons see
// zeros and ties.
Tensor operand(DType dtype, const Shape& shape, uint32_t seed) { return random_tensor(dtype, shape, seed, -4.0, 4.0); }

// Whole numbers stored as f32, so Equal and friends see ties.
Tensor whole_floats(const Shape& shape, uint32_t seed) {
  Tensor ints = random_tensor(DType::I32, shape, seed, -3.0, 3.0);
  Tensor t = Tensor::zeros(DType::F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(ints.data<int32_t>()[i]);
  return t;
}

TEST(BinaryOps, ArithmeticCpuMatchesReference) {
  const std::vector<T> types = {T::Add, T::Sub, T::Mul, T::Div, T::Min, T::Max};
  const std::vector<DType> dtypes = {DType::F32, DType::I32, DType::I64, DType::I8, DType::U8};
  // Float: the reference rounds the exact double result once; Div may
  // differ from float division by one rounding in rare cases.
  constexpr double kRtol = 1e-6;
  for_each_simd_target([&] {
    for (T type : types) {
      SCOPED_TRACE(op_type_name(type));
      for (DType dtype : dtypes) {
        SCOPED_TRACE(dtype_name(dtype));
        uint32_t seed = 1;
        for (int64_t n : odd_sizes()) {
          for (const auto& [sa, sb] : broadcast_pairs(n)) {
            expect_cpu_matches_reference(make_op(type), {operand(dtype, sa, seed), operand(dtype, sb, seed + 1)}, kRtol,
                                         0);
            ++seed;
          }
        }
      }
    }
  });
  for (T type : types) {
    for (DType dtype : dtypes) {
      uint32_t seed = 1;
      for (const auto& [sa, sb] : large_pairs()) {
        expect_cpu_matches_reference(make_op(type), {operand(dtype, sa, seed), operand(dtype, sb, seed + 1)}, kRtol, 0);
        ++seed;
      }
    }
  }
}

fb::OpT mod_op(bool fmod) {
  fb::ModAttrsT a;
  a.fmod = fmod;
  return make_op(T::Mod, a);
}

TEST(BinaryOps, ModCpuMatchesReference) {
  for_each_simd_target([&] {
    for (bool fmod : {false, true}) {
      for (DType dtype : {DType::F32, DType::I32, DType::I64, DType::I8, DType::U8}) {
        if (dtype == DType::F32 && !fmod) continue;  // ONNX: floats need fmod
        SCOPED_TRACE(std::string(dtype_name(dtype)) + (fmod ? " fmod" : " mod"));
        uint32_t seed = 1;
        for (int64_t n : odd_sizes()) {
          for (const auto& [sa, sb] : broadcast_pairs(n)) {
            expect_cpu_matches_reference(mod_op(fmod), {operand(dtype, sa, seed), operand(dtype, sb, seed + 1)}, 0, 0);
            ++seed;
          }
        }
      }
    }
  });
}

TEST(BinaryOps, ComparisonsCpuMatchReference) {
  const std::vector<T> types = {T::Equal, T::Less, T::Greater, T::LessOrEqual, T::GreaterOrEqual};
  // NaN compares false, except that it is unequal to everything.
  Tensor with_nan = Tensor::from_vector<float>({5}, {kNaN, 1.0f, kNaN, -kInf, kInf});
  Tensor other = Tensor::from_vector<float>({5}, {kNaN, kNaN, 0.0f, -kInf, 1.0f});
  for_each_simd_target([&] {
    for (T type : types) {
      SCOPED_TRACE(op_type_name(type));
      uint32_t seed = 1;
      for (int64_t n : odd_sizes()) {
        for (const auto& [sa, sb] : broadcast_pairs(n)) {
          expect_cpu_matches_reference(make_op(type), {whole_floats(sa, seed), whole_floats(sb, seed + 1)}, 0, 0);
          for (DType dtype : {DType::I32, DType::I64, DType::I8, DType::U8}) {
            expect_cpu_matches_reference(make_op(type), {operand(dtype, sa, seed), operand(dtype, sb, seed + 1)}, 0, 0);
          }
          ++seed;
        }
      }
      expect_cpu_matches_reference(make_op(type), {with_nan, other}, 0, 0);
    }
  });
  for (T type : types) {
    for (const auto& [sa, sb] : large_pairs()) {
      expect_cpu_matches_reference(make_op(type), {whole_floats(sa, 3), whole_floats(sb, 4)}, 0, 0);
    }
  }
}

TEST(BinaryOps, LogicalCpuMatchesReference) {
  for_each_simd_target([&] {
    for (T type : {T::And, T::Or, T::Equal}) {
      SCOPED_TRACE(op_type_name(type));
      uint32_t seed = 1;
      for (int64_t n : odd_sizes()) {
        for (const auto& [sa, sb] : broadcast_pairs(n)) {
          expect_cpu_matches_reference(
              make_op(type), {random_tensor(DType::Bool, sa, seed), random_tensor(DType::Bool, sb, seed + 1)}, 0, 0);
          ++seed;
        }
      }
    }
  });
}

TEST(BinaryOps, PReluCpuMatchesReference) {
  for_each_simd_target([&] {
    uint32_t seed = 1;
    for (int64_t n : odd_sizes()) {
      // The slope broadcasts to X one way: per channel, per element, scalar.
      for (const auto& [sx, ss] : std::vector<std::pair<Shape, Shape>>{
               {{2, 3, n, 5}, {3, 1, 1}}, {{2, n}, {2, n}}, {{2, n}, {1}}, {{3, n}, {n}}, {{n, 4}, {}}}) {
        for (DType dtype : {DType::F32, DType::I32, DType::I64}) {
          expect_cpu_matches_reference(make_op(T::PRelu), {operand(dtype, sx, seed), operand(dtype, ss, seed + 1)},
                                       1e-6, 0);
        }
        ++seed;
      }
    }
  });
}

// Pow: every base/exponent dtype pair, and the constant exponents that have
// vector fast paths, on values where pow has special cases.
TEST(BinaryOps, PowCpuMatchesReference) {
  for_each_simd_target([&] {
    const std::vector<float> specials = {-2.0f, -1.5f, -0.0f, 0.0f,   0.5f,  1.0f,  2.5f, 7.0f,
                                         kInf,  -kInf, kNaN,  1e-30f, 1e30f, -3.0f, 0.1f};
    Tensor base = Tensor::from_vector<float>({static_cast<int64_t>(specials.size())}, specials);
    for (float e : {2.0f, 3.0f, 0.5f, -1.0f, 0.0f, 1.0f, 1.7f, -2.0f, kNaN}) {
      SCOPED_TRACE(e);
      // x^3 is two float multiplications: within 2 ulp of the rounded power.
      expect_cpu_matches_reference(make_op(T::Pow), {base, Tensor::from_vector<float>({}, {e})}, 3e-7, 0);
    }
    for (int64_t n : odd_sizes()) {
      // Positive bases, exponents of both signs; the tolerance is powf's.
      expect_cpu_matches_reference(
          make_op(T::Pow),
          {random_tensor(DType::F32, {3, n}, 1, 0.1, 4.0), random_tensor(DType::F32, {n}, 2, -3.0, 3.0)}, 1e-6, 0);
      expect_cpu_matches_reference(
          make_op(T::Pow), {random_tensor(DType::F32, {2, n}, 3, -2.0, 2.0), Tensor::from_vector<float>({1}, {2.0f})},
          1e-6, 0);
      for (DType base_type : {DType::F32, DType::I32, DType::I64}) {
        for (DType exponent_type : {DType::F32, DType::I32, DType::I64}) {
          expect_cpu_matches_reference(
              make_op(T::Pow),
              {random_tensor(base_type, {2, n}, 4, -5.0, 6.0), random_tensor(exponent_type, {n}, 5, -2.0, 9.0)}, 1e-6,
              0);
        }
      }
    }
  });
}

TEST(BinaryOps, VariadicMinMaxCpuMatchesReference) {
  for_each_simd_target([&] {
    for (T type : {T::Min, T::Max}) {
      SCOPED_TRACE(op_type_name(type));
      for (DType dtype : {DType::F32, DType::I64}) {
        for (int64_t n : odd_sizes()) {
          Tensor a = operand(dtype, {2, 1, n}, 1);
          Tensor b = operand(dtype, {n}, 2);
          Tensor c = operand(dtype, {3, 1}, 3);
          Tensor d = operand(dtype, {2, 3, n}, 4);
          expect_cpu_matches_reference(make_op(type), {a}, 0, 0);
          expect_cpu_matches_reference(make_op(type), {a, b}, 0, 0);
          // The output is larger than the first two inputs' broadcast.
          expect_cpu_matches_reference(make_op(type), {a, b, c}, 0, 0);
          expect_cpu_matches_reference(make_op(type), {b, c, a, d}, 0, 0);
        }
      }
      Tensor with_nan = Tensor::from_vector<float>({4}, {kNaN, 1.0f, 2.0f, -kInf});
      Tensor other = Tensor::from_vector<float>({4}, {0.0f, kNaN, 1.0f, kInf});
      expect_cpu_matches_reference(make_op(type), {with_nan, other, Tensor::from_vector<float>({1}, {1.5f})}, 0, 0);
    }
  });
}

TEST(BinaryOps, WhereCpuMatchesReference) {
  for_each_simd_target([&] {
    uint32_t seed = 1;
    for (int64_t n : odd_sizes()) {
      const std::vector<std::vector<Shape>> layouts = {
          {{2, n}, {2, n}, {2, n}}, {{2, n}, {}, {2, n}},  {{n}, {3, n}, {}},
          {{3, 1}, {n}, {3, n}},    {{1, n}, {2, 1}, {1}}, {{2, 3, n}, {3, 1}, {2, 1, n}},
      };
      for (const auto& shapes : layouts) {
        for (DType dtype : {DType::F32, DType::I64, DType::I32, DType::Bool, DType::I8}) {
          expect_cpu_matches_reference(
              make_op(T::Where),
              {random_tensor(DType::Bool, shapes[0], seed), random_tensor(dtype, shapes[1], seed + 1, -9, 9),
               random_tensor(dtype, shapes[2], seed + 2, -9, 9)},
              0, 0);
        }
        ++seed;
      }
    }
    expect_cpu_matches_reference(make_op(T::Where),
                                 {random_tensor(DType::Bool, {64, 1031}, 1), random_tensor(DType::F32, {1031}, 2),
                                  random_tensor(DType::F32, {64, 1}, 3)},
                                 0, 0);
  });
}

// f16 has no arithmetic here, but Where moves its 2-byte elements.
TEST(BinaryOps, WhereMovesHalfElements) {
  Tensor x = Tensor::zeros(DType::F16, {3});
  Tensor y = Tensor::zeros(DType::F16, {3});
  for (int i = 0; i < 3; ++i) {
    x.data<uint16_t>()[i] = static_cast<uint16_t>(0x3c00 + i);  // 1.0 and neighbours
    y.data<uint16_t>()[i] = static_cast<uint16_t>(0xc000 + i);  // -2.0 and neighbours
  }
  Tensor cond = Tensor::from_vector<bool>({3}, {true, false, true});
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    auto out = run_op(make_op(T::Where), {cond, x, y}, impl);
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    const uint16_t* bits = (*out)[0].data<uint16_t>();
    EXPECT_EQ(bits[0], 0x3c00);
    EXPECT_EQ(bits[1], 0xc001);
    EXPECT_EQ(bits[2], 0x3c02);
  }
}

void expect_reference_output(const fb::OpT& op, const Inputs& inputs, const Tensor& expected, const char* numpy) {
  SCOPED_TRACE(std::string(op_type_name(op.type)) + ": " + numpy);
  auto out = run_op(op, inputs, Impl::kReference);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  expect_tensors_near((*out)[0], expected, 1e-6, 0);
}

template <class V>
Tensor tensor(Shape shape, std::vector<V> values) {
  return Tensor::from_vector<V>(std::move(shape), values);
}

// Expected values computed with numpy 2; a = [[1.5, -2, 3], [0.25, -0.5, 4]],
// b = [2, -4, 0.5], col = [[2], [-1]], all float32.
TEST(BinaryOps, ArithmeticReferenceMatchesNumpy) {
  Tensor a = tensor<float>({2, 3}, {1.5f, -2.0f, 3.0f, 0.25f, -0.5f, 4.0f});
  Tensor b = tensor<float>({3}, {2.0f, -4.0f, 0.5f});
  Tensor col = tensor<float>({2, 1}, {2.0f, -1.0f});
  expect_reference_output(make_op(T::Add), {a, b}, tensor<float>({2, 3}, {3.5f, -6.0f, 3.5f, 2.25f, -4.5f, 4.5f}),
                          "a + b");
  expect_reference_output(make_op(T::Sub), {a, col}, tensor<float>({2, 3}, {-0.5f, -4.0f, 1.0f, 1.25f, 0.5f, 5.0f}),
                          "a - col");
  expect_reference_output(make_op(T::Mul), {a, b}, tensor<float>({2, 3}, {3.0f, 8.0f, 1.5f, 0.5f, 2.0f, 2.0f}),
                          "a * b");
  expect_reference_output(make_op(T::Div), {a, col}, tensor<float>({2, 3}, {0.75f, -1.0f, 1.5f, -0.25f, 0.5f, -4.0f}),
                          "a / col");
  expect_reference_output(make_op(T::Div), {tensor<float>({3}, {1.0f, -1.0f, 0.0f}), tensor<float>({}, {0.0f})},
                          tensor<float>({3}, {kInf, -kInf, kNaN}), "np.array([1, -1, 0]) / 0.0");
  expect_reference_output(make_op(T::Min), {a, b}, tensor<float>({2, 3}, {1.5f, -4.0f, 0.5f, 0.25f, -4.0f, 0.5f}),
                          "np.minimum(a, b)");
  expect_reference_output(
      make_op(T::Max), {a, b, tensor<float>({2, 1, 1}, {-1.0f, 5.0f})},
      tensor<float>({2, 2, 3}, {2.0f, -1.0f, 3.0f, 2.0f, -0.5f, 4.0f, 5.0f, 5.0f, 5.0f, 5.0f, 5.0f, 5.0f}),
      "np.maximum(np.maximum(a, b), [[[-1]], [[5]]])");
  expect_reference_output(make_op(T::Max), {a}, a, "a (one input)");
  expect_reference_output(make_op(T::Max),
                          {tensor<float>({3}, {kNaN, 1.0f, 2.0f}), tensor<float>({3}, {0.0f, kNaN, 1.0f})},
                          tensor<float>({3}, {kNaN, kNaN, 2.0f}), "np.maximum([nan, 1, 2], [0, nan, 1])");
  expect_reference_output(make_op(T::Min),
                          {tensor<float>({3}, {kNaN, 1.0f, 2.0f}), tensor<float>({3}, {0.0f, kNaN, 1.0f})},
                          tensor<float>({3}, {kNaN, kNaN, 1.0f}), "np.minimum([nan, 1, 2], [0, nan, 1])");
  expect_reference_output(make_op(T::PRelu), {a, tensor<float>({2, 1}, {0.1f, 0.5f})},
                          tensor<float>({2, 3}, {1.5f, -0.200000003f, 3.0f, 0.25f, -0.25f, 4.0f}),
                          "np.where(a < 0, a * [[0.1], [0.5]], a)");
}

TEST(BinaryOps, IntegerReferenceMatchesNumpy) {
  Tensor a = tensor<int32_t>({2, 3}, {7, -7, 9, -9, 0, 5});
  Tensor b = tensor<int32_t>({3}, {2, 2, -4});
  expect_reference_output(make_op(T::Add), {a, b}, tensor<int32_t>({2, 3}, {9, -5, 5, -7, 2, 1}), "a + b");
  expect_reference_output(make_op(T::Sub), {a, b}, tensor<int32_t>({2, 3}, {5, -9, 13, -11, -2, 9}), "a - b");
  expect_reference_output(make_op(T::Mul), {a, b}, tensor<int32_t>({2, 3}, {14, -14, -36, -18, 0, -20}), "a * b");
  // ONNX integer Div truncates toward zero (numpy's // floors).
  expect_reference_output(make_op(T::Div), {a, b}, tensor<int32_t>({2, 3}, {3, -3, -2, -4, 0, -1}),
                          "np.trunc(a / b).astype(np.int32)");
  expect_reference_output(make_op(T::Max), {a, b}, tensor<int32_t>({2, 3}, {7, 2, 9, 2, 2, 5}), "np.maximum(a, b)");
  // Mote's choices where C traps: x / 0 = 0 (numpy too), INT_MIN / -1 wraps.
  expect_reference_output(make_op(T::Div), {tensor<int32_t>({2}, {5, -2147483647 - 1}), tensor<int32_t>({2}, {0, -1})},
                          tensor<int32_t>({2}, {0, -2147483647 - 1}), "np.int32 semantics");
  expect_reference_output(make_op(T::Add), {tensor<int64_t>({1}, {9223372036854775807}), tensor<int64_t>({1}, {1})},
                          tensor<int64_t>({1}, {-9223372036854775807 - 1}), "np.int64 wraps");
}

TEST(BinaryOps, ModReferenceMatchesNumpy) {
  Tensor a = tensor<int32_t>({2, 3}, {7, -7, 9, -9, 0, 5});
  Tensor b = tensor<int32_t>({3}, {2, 2, -4});
  // The divisor's sign (np.mod) and the dividend's (np.fmod).
  expect_reference_output(mod_op(false), {a, b}, tensor<int32_t>({2, 3}, {1, 1, -3, 1, 0, -3}), "np.mod(a, b)");
  expect_reference_output(mod_op(true), {a, b}, tensor<int32_t>({2, 3}, {1, -1, 1, -1, 0, 1}), "np.fmod(a, b)");
  expect_reference_output(mod_op(true), {tensor<float>({3}, {5.5f, -5.5f, 7.25f}), tensor<float>({3}, {2.0f, 2.0f, -0.5f})},
                          tensor<float>({3}, {1.5f, -1.5f, 0.25f}), "np.fmod(a, b)");
  // Mote's choices where C traps: x mod 0 = 0 (numpy too), INT8_MIN mod -1 = 0.
  expect_reference_output(mod_op(false), {tensor<uint8_t>({2}, {200, 7}), tensor<uint8_t>({2}, {7, 0})},
                          tensor<uint8_t>({2}, {4, 0}), "np.mod on uint8");
  expect_reference_output(mod_op(false), {tensor<int8_t>({2}, {-128, -128}), tensor<int8_t>({2}, {-1, 3})},
                          tensor<int8_t>({2}, {0, 1}), "np.mod on int8");
}

TEST(BinaryOps, PowReferenceMatchesNumpy) {
  expect_reference_output(make_op(T::Pow),
                          {tensor<float>({2, 3}, {1.5f, -2.0f, 3.0f, 0.25f, -0.5f, 4.0f}), tensor<float>({}, {2.0f})},
                          tensor<float>({2, 3}, {2.25f, 4.0f, 9.0f, 0.0625f, 0.25f, 16.0f}), "a ** 2");
  expect_reference_output(
      make_op(T::Pow), {tensor<float>({4}, {2.0f, 3.0f, 0.5f, -2.0f}), tensor<float>({4}, {3.0f, 0.5f, -2.0f, 2.0f})},
      tensor<float>({4}, {8.0f, 1.73205078f, 4.0f, 4.0f}), "[2, 3, 0.5, -2] ** [3, 0.5, -2, 2]");
  expect_reference_output(make_op(T::Pow),
                          {tensor<int32_t>({6}, {2, -3, 5, 7, -1, 0}), tensor<int32_t>({6}, {10, 3, 0, 2, 5, 3})},
                          tensor<int32_t>({6}, {1024, -27, 1, 49, -1, 0}), "np.power(int32, int32)");
  expect_reference_output(make_op(T::Pow), {tensor<int64_t>({3}, {2, 3, 4}), tensor<float>({3}, {0.5f, 2.0f, 1.5f})},
                          tensor<int64_t>({3}, {1, 9, 8}), "np.power(int64, float32).astype(np.int64)");
  expect_reference_output(make_op(T::Pow), {tensor<float>({3}, {1.5f, -2.0f, 4.0f}), tensor<int64_t>({3}, {2, 3, -1})},
                          tensor<float>({3}, {2.25f, -8.0f, 0.25f}), "np.power(float32, int64).astype(np.float32)");
}

TEST(BinaryOps, ComparisonReferenceMatchesNumpy) {
  Tensor x = tensor<float>({2, 3}, {1.0f, 2.0f, 3.0f, 3.0f, 2.0f, 1.0f});
  Tensor y = tensor<float>({3}, {2.0f, 2.0f, kNaN});
  struct Case {
    T type;
    std::vector<bool> expected;
    const char* numpy;
  };
  for (const Case& c : std::vector<Case>{
           {T::Equal, {false, true, false, false, true, false}, "np.equal(x, y)"},
           {T::Less, {true, false, false, false, false, false}, "np.less(x, y)"},
           {T::Greater, {false, false, false, true, false, false}, "np.greater(x, y)"},
           {T::LessOrEqual, {true, true, false, false, true, false}, "np.less_equal(x, y)"},
           {T::GreaterOrEqual, {false, true, false, true, true, false}, "np.greater_equal(x, y)"},
       }) {
    expect_reference_output(make_op(c.type), {x, y}, tensor<bool>({2, 3}, c.expected), c.numpy);
  }
  Tensor p = tensor<bool>({2, 2}, {true, false, true, true});
  Tensor q = tensor<bool>({2}, {false, true});
  expect_reference_output(make_op(T::And), {p, q}, tensor<bool>({2, 2}, {false, false, false, true}),
                          "np.logical_and(p, q)");
  expect_reference_output(make_op(T::Or), {p, q}, tensor<bool>({2, 2}, {true, true, true, true}),
                          "np.logical_or(p, q)");
  expect_reference_output(make_op(T::Equal), {p, q}, tensor<bool>({2, 2}, {false, false, false, true}),
                          "np.equal(p, q)");
}

TEST(BinaryOps, WhereReferenceMatchesNumpy) {
  expect_reference_output(
      make_op(T::Where),
      {tensor<bool>({2, 1}, {true, false}), tensor<float>({3}, {1.0f, 2.0f, 3.0f}), tensor<float>({}, {-1.0f})},
      tensor<float>({2, 3}, {1.0f, 2.0f, 3.0f, -1.0f, -1.0f, -1.0f}), "np.where([[True], [False]], [1, 2, 3], -1)");
  expect_reference_output(make_op(T::Where),
                          {tensor<bool>({3}, {true, false, true}), tensor<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6}),
                           tensor<int64_t>({2, 1}, {10, 20})},
                          tensor<int64_t>({2, 3}, {1, 10, 3, 4, 20, 6}),
                          "np.where([True, False, True], [[1, 2, 3], [4, 5, 6]], [[10], [20]])");
}

TEST(BinaryOps, ShapeFunctionRejectsBadInputs) {
  Tensor f = tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor i = tensor<int32_t>({3}, {1, 2, 3});
  Tensor bools = tensor<bool>({3}, {true, false, true});
  Tensor f4 = tensor<float>({4}, {1, 2, 3, 4});
  auto fails = [](const fb::OpT& op, const Inputs& inputs) {
    auto out = run_op(op, inputs, Impl::kCpu);
    EXPECT_FALSE(out.ok()) << op_type_name(op.type) << " accepted bad inputs";
    if (!out.ok()) {
      // The shape function refused (kInvalidModel), not a kernel.
      EXPECT_EQ(out.status().code(), StatusCode::kInvalidModel) << out.status().to_string();
    }
  };
  fails(make_op(T::Add), {f, i});                                                   // mixed dtypes
  fails(make_op(T::Mul), {f, f4});                                                  // 3 vs 4
  fails(make_op(T::Sub), {bools, bools});                                           // no bool arithmetic
  fails(make_op(T::Pow), {f, bools});                                               // bool exponent
  fails(make_op(T::Max), {f, f, i});                                                // third input's dtype
  fails(make_op(T::PRelu), {tensor<float>({3}, {1, 2, 3}), f});                     // slope larger than X
  fails(make_op(T::And), {f, f});                                                   // not bool
  fails(make_op(T::Less), {bools, bools});                                          // bools have no order
  fails(make_op(T::Equal), {bools, i});                                             // mixed dtypes
  fails(make_op(T::Where), {f, f, f});                                              // condition not bool
  fails(make_op(T::Where), {bools, f, i});                                          // X and Y differ
  fails(make_op(T::Where), {tensor<bool>({4}, {true, true, false, false}), f, f});  // 4 vs 3
}

}  // namespace
}  // namespace mote::test
