// Comparisons, logic, Where and Cast on Vulkan against the reference
// kernels, with broadcasting, odd sizes, f32 and f16 storage.
#include <cmath>
#include <limits>

#include "runtime/core/half.hpp"
#include "tests/ops/data_movement_test_util.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

using fb::OpType;

const Tolerance kExact{0, 0, 0, 0};

// Values on a grid of quarters, exact in f16, so comparisons see ties.
Tensor quarters(Shape shape, uint32_t seed) {
  Tensor t = random_tensor(DType::F32, std::move(shape), seed, -2.0, 2.0);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = std::round(t.data<float>()[i] * 4) / 4;
  return t;
}

Tensor small_integers(DType dtype, Shape shape, uint32_t seed) {
  Tensor q = quarters(std::move(shape), seed);
  Tensor t = Tensor::zeros(dtype, q.shape());
  for (int64_t i = 0; i < t.numel(); ++i) {
    auto v = static_cast<int64_t>(q.data<float>()[i] * 4);
    if (dtype == DType::I32) t.data<int32_t>()[i] = static_cast<int32_t>(v);
    if (dtype == DType::I64) t.data<int64_t>()[i] = v * 1000000007LL;  // past 32 bits: both words compared
  }
  return t;
}

const std::vector<std::pair<Shape, Shape>>& broadcast_cases() {
  static const std::vector<std::pair<Shape, Shape>> cases = {
      {{127}, {127}}, {{13, 1, 5}, {1, 7, 5}}, {{2, 3, 4, 5}, {5}}, {{1}, {3, 13}}, {{2, 1, 3, 1, 2, 3}, {3, 1, 1, 3}},
  };
  return cases;
}

class CompareVk : public ::testing::TestWithParam<OpType> {};

TEST_P(CompareVk, NumbersWithTiesAndBroadcasting) {
  MOTE_REQUIRE_VULKAN();
  const fb::OpT op = make_op(GetParam());
  uint32_t seed = 1;
  for (const auto& [sa, sb] : broadcast_cases()) {
    expect_vulkan_matches_reference(op, {quarters(sa, seed), quarters(sb, seed + 1)}, kExact, 0);
    for (DType dtype : {DType::I32, DType::I64}) {
      expect_vulkan_matches_reference(op, {small_integers(dtype, sa, seed), small_integers(dtype, sb, seed + 1)},
                                      kExact, 0);
    }
    seed += 2;
  }
  // NaN compares false; a constant operand.
  Tensor nan = Tensor::from_vector<float>({3}, {std::numeric_limits<float>::quiet_NaN(), 1, -1});
  expect_vulkan_matches_reference(op, {nan, Tensor::from_vector<float>({1}, {1})}, kExact, 0b10);
}

INSTANTIATE_TEST_SUITE_P(All, CompareVk,
                         ::testing::Values(OpType::Equal, OpType::Less, OpType::Greater, OpType::LessOrEqual,
                                           OpType::GreaterOrEqual),
                         [](const auto& info) { return std::string(op_type_name(info.param)); });

TEST(LogicVk, AndOrNotEqualOnBools) {
  MOTE_REQUIRE_VULKAN();
  uint32_t seed = 100;
  for (const auto& [sa, sb] : broadcast_cases()) {
    Tensor a = random_tensor(DType::Bool, sa, seed++), b = random_tensor(DType::Bool, sb, seed++);
    for (OpType type : {OpType::And, OpType::Or, OpType::Equal}) {
      expect_vulkan_matches_reference(make_op(type), {a, b}, kExact, 0);
    }
    expect_vulkan_matches_reference(make_op(OpType::Not), {a}, kExact, 0);
  }
}

TEST(WhereVk, PicksWithBroadcasting) {
  MOTE_REQUIRE_VULKAN();
  const std::vector<std::vector<Shape>> cases = {
      {{127}, {127}, {127}}, {{13, 1, 5}, {1, 7, 5}, {5}}, {{1}, {3, 13}, {3, 1}}, {{2, 1, 3, 1, 2, 3}, {3, 1, 1, 3}, {1}},
  };
  uint32_t seed = 200;
  for (const auto& shapes : cases) {
    Tensor cond = random_tensor(DType::Bool, shapes[0], seed++);
    for (DType dtype : {DType::F32, DType::I32, DType::I64}) {
      Tensor x = distinct_tensor(dtype, shapes[1], seed++), y = distinct_tensor(dtype, shapes[2], seed++);
      expect_vulkan_matches_reference(make_op(OpType::Where), {cond, x, y}, kExact, 0);
      expect_vulkan_matches_reference(make_op(OpType::Where), {cond, x, y}, kExact, 0b110);
    }
  }
}

fb::OpT cast_to(DType to) {
  fb::CastAttrsT a;
  a.to = to;
  return make_op(OpType::Cast, a);
}

// Values of every dtype that f16 storage keeps exactly and that stay in
// range of every target: halves in [-300, 300], some zeros.
Tensor cast_source(DType dtype, int64_t n, uint32_t seed) {
  Tensor f = random_tensor(DType::F32, {n}, seed, -300.0, 300.0);
  for (int64_t i = 0; i < n; ++i) f.data<float>()[i] = i % 5 == 0 ? 0.0f : std::round(f.data<float>()[i] * 2) / 2;
  Tensor t = Tensor::zeros(dtype, {n});
  for (int64_t i = 0; i < n; ++i) {
    float v = f.data<float>()[i];
    switch (dtype) {
      case DType::F32: t.data<float>()[i] = v; break;
      case DType::F16: t.data<uint16_t>()[i] = float_to_half(v); break;
      case DType::I32: t.data<int32_t>()[i] = static_cast<int32_t>(v); break;
      case DType::I64: t.data<int64_t>()[i] = static_cast<int64_t>(v); break;
      case DType::Bool: t.data<bool>()[i] = v > 0; break;
      default: break;
    }
  }
  return t;
}

TEST(CastVk, BetweenEverySupportedPair) {
  MOTE_REQUIRE_VULKAN();
  const DType dtypes[] = {DType::F32, DType::F16, DType::I32, DType::I64, DType::Bool};
  uint32_t seed = 300;
  for (DType from : dtypes) {
    for (DType to : dtypes) {
      if ((from == DType::F16 || to == DType::F16) && !device_has_half_conversions()) continue;
      for (int64_t n : odd_sizes()) {
        SCOPED_TRACE(std::string(dtype_name(from)) + " -> " + dtype_name(to) + ", n = " + std::to_string(n));
        expect_vulkan_matches_reference(cast_to(to), {cast_source(from, n, seed++)}, kExact, 0);
      }
    }
  }
}

TEST(CastVk, SaturatesWrapsAndKeepsNan) {
  MOTE_REQUIRE_VULKAN();
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  Tensor f = Tensor::from_vector<float>({9}, {nan, inf, -inf, 3e9f, -3e9f, 2.75f, -2.75f, 1e10f, -0.0f});
  for (DType to : {DType::I32, DType::I64, DType::Bool, DType::F16}) {
    if (to == DType::F16 && !device_has_half_conversions()) continue;
    SCOPED_TRACE(dtype_name(to));
    expect_vulkan_matches_reference(cast_to(to), {f}, kExact, 0);
  }
  // i64 past 32 bits: wraps to i32, stays i64, is true as bool.
  Tensor big = Tensor::from_vector<int64_t>({5}, {int64_t{1} << 40, -(int64_t{1} << 33) - 5, -1, 4294967297LL, 0});
  for (DType to : {DType::I32, DType::I64, DType::Bool}) {
    SCOPED_TRACE(dtype_name(to));
    expect_vulkan_matches_reference(cast_to(to), {big}, kExact, 0);
  }
}

}  // namespace
}  // namespace mote::test
