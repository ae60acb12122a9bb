// Cast: the optimised kernel against the reference for every dtype pair, the
// reference against numpy, and the cases where Mote defines what ONNX leaves
// undefined (NaN and out-of-range floats to integers).
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "runtime/core/half.hpp"
#include "tests/support/op_test_util.hpp"
#include "tests/support/simd_targets.hpp"

namespace mote::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> dtypes = {DType::F32, DType::F16, DType::I8,   DType::U8,
                                            DType::I32, DType::I64, DType::Bool, DType::F64};
  return dtypes;
}

fb::OpT cast_to(DType to) {
  fb::CastAttrsT a;
  a.to = to;
  return make_op(fb::OpType::Cast, a);
}

Tensor f16_from_bits(const std::vector<uint16_t>& bits) {
  Tensor t = Tensor::zeros(DType::F16, {static_cast<int64_t>(bits.size())});
  std::memcpy(t.raw(), bits.data(), bits.size() * 2);
  return t;
}

std::vector<uint16_t> f16_bits(const Tensor& t) {
  std::vector<uint16_t> bits(static_cast<size_t>(t.numel()));
  std::memcpy(bits.data(), t.raw(), bits.size() * 2);
  return bits;
}

// Cast results are exact: equal values (NaN matching NaN), and for 64-bit
// integers, which doubles cannot all hold, equal integers.
void expect_cast_matches_reference(DType to, const Tensor& x) {
  SCOPED_TRACE(std::string(dtype_name(x.dtype())) + " -> " + dtype_name(to));
  expect_cpu_matches_reference(cast_to(to), {x}, 0, 0);
  if (to == DType::I64) {
    auto expected = run_op(cast_to(to), {x}, Impl::kReference);
    auto actual = run_op(cast_to(to), {x}, Impl::kCpu, 2);
    ASSERT_TRUE(expected.ok() && actual.ok());
    EXPECT_EQ((*actual)[0].to_int64s(), (*expected)[0].to_int64s());
  }
}

// Values every conversion has an edge at: rounding ties, ranges of i8, u8,
// i32 and f16, signed zeros, infinities, NaN, f16 subnormals.
std::vector<double> edge_values() {
  return {0.0,     -0.0,   0.5,    -0.5,         1.5,   2.5,   -2.5,       0.9999, 127.0,   127.9,
          128.0,   -128.0, -128.9, -129.0,       255.0, 255.9, 256.0,      -1.0,   65504.0, 65519.0,
          65520.0, 1e5,    -1e5,   2147483520.0, 3e9,   -3e9,  1e19,       -1e19,  1e30,    6e-8,
          3e-8,    1e-5,   1e-40,  kInf,         -kInf, kNaN,  16777217.0, 0.1,    -7.75,   1e300};
}

template <class T>
Tensor edge_tensor() {
  std::vector<T> values;
  for (double v : edge_values()) {
    // Converting a finite double beyond the float range is undefined.
    if (std::isfinite(v) && std::fabs(v) > std::numeric_limits<T>::max()) continue;
    values.push_back(static_cast<T>(v));
  }
  return Tensor::from_vector<T>({static_cast<int64_t>(values.size())}, values);
}

// Random values in [-300, 300) (past the i8 and u8 ranges), or random bit
// patterns for f16.
Tensor random_source(DType dtype, Shape shape, uint32_t seed) {
  if (dtype != DType::F16) return random_tensor(dtype, std::move(shape), seed, -300.0, 300.0);
  Tensor t = Tensor::zeros(DType::F16, std::move(shape));
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<uint16_t>()[i] = static_cast<uint16_t>(rng());
  return t;
}

TEST(CastOps, CpuMatchesReferenceForEveryPair) {
  for_each_simd_target([] {
    for (DType from : all_dtypes()) {
      for (DType to : all_dtypes()) {
        uint32_t seed = 1;
        for (int64_t n : odd_sizes()) expect_cast_matches_reference(to, random_source(from, {3, n}, seed++));
      }
    }
  });
  // Several parallel chunks.
  for (DType from : all_dtypes()) {
    for (DType to : all_dtypes()) expect_cast_matches_reference(to, random_source(from, {40013}, 9));
  }
}

TEST(CastOps, CpuMatchesReferenceOnEdgeValues) {
  for_each_simd_target([] {
    for (DType to : all_dtypes()) {
      expect_cast_matches_reference(to, edge_tensor<float>());
      expect_cast_matches_reference(to, edge_tensor<double>());
    }
  });
}

// Every f16 value to every dtype, and f32 values at every f16 rounding tie
// (the midpoints between neighbouring halves, and one f32 step either side)
// back to f16: the vectorised conversion rounds exactly as half.hpp.
TEST(CastOps, HalfConversionsAreExactEverywhere) {
  for_each_simd_target([&] {
    std::vector<uint16_t> every(65536);
    for (size_t i = 0; i < every.size(); ++i) every[i] = static_cast<uint16_t>(i);
    Tensor halves = f16_from_bits(every);
    for (DType to : all_dtypes()) expect_cast_matches_reference(to, halves);

    std::vector<float> ties;
    for (uint32_t h = 0; h < 0x7c00; ++h) {
      const float lo = half_to_float(static_cast<uint16_t>(h));
      const float hi = half_to_float(static_cast<uint16_t>(h + 1));
      const float mid = static_cast<float>((static_cast<double>(lo) + hi) / 2);
      for (float v : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, kInf)}) {
        ties.push_back(v);
        ties.push_back(-v);
      }
    }
    auto to_half = run_op(cast_to(DType::F16), {Tensor::from_vector<float>({static_cast<int64_t>(ties.size())}, ties)},
                          Impl::kCpu, 2);
    auto reference = run_op(cast_to(DType::F16),
                            {Tensor::from_vector<float>({static_cast<int64_t>(ties.size())}, ties)}, Impl::kReference);
    ASSERT_TRUE(to_half.ok() && reference.ok());
    EXPECT_EQ(f16_bits((*to_half)[0]), f16_bits((*reference)[0]));
  });
}

Tensor cast_reference(DType to, const Tensor& x) {
  auto y = run_op(cast_to(to), {x}, Impl::kReference);
  EXPECT_TRUE(y.ok()) << y.status().to_string();
  return y.ok() ? (*y)[0] : Tensor();
}

// Expected values from numpy 2 (x.astype(...)), except where noted.
TEST(CastOps, ReferenceMatchesNumpy) {
  // np.array([-2.7, -0.5, 0.5, 2.7, 1e9], np.float32).astype(np.int32): truncation.
  EXPECT_EQ(cast_reference(DType::I32, Tensor::from_vector<float>({5}, {-2.7f, -0.5f, 0.5f, 2.7f, 1e9f})).to_int64s(),
            (std::vector<int64_t>{-2, 0, 0, 2, 1000000000}));
  // np.array([0.9, 255, 3.7], np.float32).astype(np.uint8)
  EXPECT_EQ(cast_reference(DType::U8, Tensor::from_vector<float>({3}, {0.9f, 255.0f, 3.7f})).to_int64s(),
            (std::vector<int64_t>{0, 255, 3}));
  // np.array([1/3, 65504, 1e-5, 0.1, -2.5, 70000, inf], np.float32).astype(np.float16).view(np.uint16)
  EXPECT_EQ(f16_bits(cast_reference(
                DType::F16, Tensor::from_vector<float>({7}, {1.0f / 3, 65504.0f, 1e-5f, 0.1f, -2.5f, 70000.0f, kInf}))),
            (std::vector<uint16_t>{0x3555, 0x7bff, 0x00a8, 0x2e66, 0xc100, 0x7c00, 0x7c00}));
  // np.array([1 + 2**-11 + 2**-40, 65519, 65520, 2**-25, 2**-25 + 2**-40]).astype(np.float16):
  // f64 rounds to f16 directly (via f32 the first would tie down to 0x3c00).
  EXPECT_EQ(f16_bits(cast_reference(
                DType::F16,
                Tensor::from_vector<double>({5}, {1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), 65519.0, 65520.0,
                                                  std::ldexp(1.0, -25), std::ldexp(1.0, -25) + std::ldexp(1.0, -40)}))),
            (std::vector<uint16_t>{0x3c01, 0x7bff, 0x7c00, 0x0000, 0x0001}));
  // np.array([0x3c00, 0x7bff, 0x0001, 0xfc00, 0x8000, 0x3555], np.uint16).view(np.float16).astype(np.float64)
  expect_tensors_near(
      cast_reference(DType::F64, f16_from_bits({0x3c00, 0x7bff, 0x0001, 0xfc00, 0x8000, 0x3555})),
      Tensor::from_vector<double>({6}, {1.0, 65504.0, 5.960464477539063e-08, -kInf, -0.0, 0.333251953125}), 0, 0);
  // np.array([300, -129, 127], np.int64).astype(np.int8): wraps.
  EXPECT_EQ(cast_reference(DType::I8, Tensor::from_vector<int64_t>({3}, {300, -129, 127})).to_int64s(),
            (std::vector<int64_t>{44, 127, 127}));
  // np.array([200, 7], np.uint8).astype(np.int8)
  EXPECT_EQ(cast_reference(DType::I8, Tensor::from_vector<uint8_t>({2}, {200, 7})).to_int64s(),
            (std::vector<int64_t>{-56, 7}));
  // np.array([2**24 + 1, -2**40 - 1], np.int64).astype(np.float32): round to nearest.
  expect_tensors_near(cast_reference(DType::F32, Tensor::from_vector<int64_t>({2}, {16777217, -1099511627777})),
                      Tensor::from_vector<float>({2}, {16777216.0f, -1.0995116e12f}), 0, 0);
  // np.array([0, -0.0, nan, 0.1], np.float32).astype(bool)
  expect_tensors_near(cast_reference(DType::Bool, Tensor::from_vector<float>({4}, {0.0f, -0.0f, kNaN, 0.1f})),
                      Tensor::from_vector<bool>({4}, {false, false, true, true}), 0, 0);
  // np.array([1e300, -1e-300, 0.1]).astype(np.float32)
  expect_tensors_near(cast_reference(DType::F32, Tensor::from_vector<double>({3}, {1e300, -1e-300, 0.1})),
                      Tensor::from_vector<float>({3}, {kInf, -0.0f, 0.1f}), 0, 0);
  // np.array([True, False]).astype(np.int64)
  EXPECT_EQ(cast_reference(DType::I64, Tensor::from_vector<bool>({2}, {true, false})).to_int64s(),
            (std::vector<int64_t>{1, 0}));
}

// numpy leaves these undefined (a RuntimeWarning and a platform-dependent
// value); Mote saturates and maps NaN to 0.
TEST(CastOps, FloatToIntegerSaturates) {
  Tensor x = Tensor::from_vector<float>({6}, {kNaN, kInf, -kInf, 3e9f, -3e9f, -1.5f});
  EXPECT_EQ(cast_reference(DType::I32, x).to_int64s(),
            (std::vector<int64_t>{0, 2147483647, -2147483647 - 1, 2147483647, -2147483647 - 1, -1}));
  EXPECT_EQ(cast_reference(DType::U8, x).to_int64s(), (std::vector<int64_t>{0, 255, 0, 255, 0, 0}));
  EXPECT_EQ(cast_reference(DType::I64, x).to_int64s(),
            (std::vector<int64_t>{0, 9223372036854775807, -9223372036854775807 - 1, 3000000000, -3000000000, -1}));
}

TEST(CastOps, ShapeFunctionRejectsUnknownDtypes) {
  fb::OpT op = cast_to(static_cast<DType>(42));
  EXPECT_FALSE(run_op(op, {Tensor::from_vector<float>({1}, {1.0f})}, Impl::kCpu).ok());
  // Without attributes, `to` is the schema default f32.
  auto y = run_op(make_op(fb::OpType::Cast), {Tensor::from_vector<int32_t>({1}, {3})}, Impl::kCpu);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  EXPECT_EQ((*y)[0].dtype(), DType::F32);
}

}  // namespace
}  // namespace mote::test
