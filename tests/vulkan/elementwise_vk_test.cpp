// Unary and broadcasting binary ops on Vulkan against the reference kernels,
// over odd sizes, f32 and f16 storage.
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

using fb::OpType;

class UnaryVk : public ::testing::TestWithParam<OpType> {};

TEST_P(UnaryVk, MatchesReference) {
  MOTE_REQUIRE_VULKAN();
  OpType type = GetParam();
  // Domains that keep each function finite: Log and Sqrt on positives.
  bool positive = type == OpType::Log || type == OpType::Sqrt || type == OpType::Reciprocal;
  for (int64_t n : odd_sizes()) {
    Tensor x = random_tensor(DType::F32, {n, 7}, 11 + static_cast<uint32_t>(n), positive ? 0.1 : -4.0, 4.0);
    expect_vulkan_matches_reference(make_op(type), {x});
  }
}

INSTANTIATE_TEST_SUITE_P(
    All, UnaryVk,
    ::testing::Values(OpType::Sqrt, OpType::Exp, OpType::Log, OpType::Abs, OpType::Neg, OpType::Reciprocal,
                      OpType::Relu, OpType::LeakyRelu, OpType::Sigmoid, OpType::Tanh, OpType::HardSigmoid,
                      OpType::HardSwish, OpType::Elu, OpType::Selu, OpType::Gelu, OpType::Erf, OpType::Softplus,
                      OpType::Sin, OpType::Cos, OpType::Floor, OpType::Ceil, OpType::Round, OpType::Sign),
    [](const auto& info) { return std::string(op_type_name(info.param)); });

TEST(ClipVk, ConstantBoundsAndNone) {
  MOTE_REQUIRE_VULKAN();
  Tensor x = random_tensor(DType::F32, {5, 13}, 3, -3.0, 3.0);
  Tensor lo = Tensor::from_vector<float>({}, {-0.5f});
  Tensor hi = Tensor::from_vector<float>({}, {1.25f});
  expect_vulkan_matches_reference(make_op(OpType::Clip), {x, lo, hi}, {}, 0b110);
  expect_vulkan_matches_reference(make_op(OpType::Clip), {x, std::nullopt, hi}, {}, 0b110);
  expect_vulkan_matches_reference(make_op(OpType::Clip), {x}, {}, 0);
}

// True when `from` broadcasts to exactly `to` (unidirectional, as PRelu's slope).
bool broadcasts_into(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  for (size_t i = 0; i < from.size(); ++i) {
    int64_t f = from[from.size() - 1 - i], t = to[to.size() - 1 - i];
    if (f != 1 && f != t) return false;
  }
  return true;
}

class BinaryVk : public ::testing::TestWithParam<OpType> {};

TEST_P(BinaryVk, BroadcastsLikeOnnx) {
  MOTE_REQUIRE_VULKAN();
  OpType type = GetParam();
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{127}, {127}}, {{13, 1, 5}, {1, 7, 5}}, {{2, 3, 4, 5}, {5}}, {{1}, {3, 13}}, {{2, 1, 3, 1, 2, 3}, {3, 1, 1, 3}},
  };
  uint32_t seed = 1;
  for (const auto& [sa, sb] : cases) {
    bool pow = type == OpType::Pow;
    Tensor a = random_tensor(DType::F32, sa, seed++, pow ? 0.2 : -2.0, 2.0);
    Tensor b = random_tensor(DType::F32, sb, seed++, pow ? -2.0 : -2.0, 2.0);
    if (type == OpType::Div) {
      for (int64_t i = 0; i < b.numel(); ++i) b.data<float>()[i] += b.data<float>()[i] < 0 ? -0.5f : 0.5f;
    }
    if (type == OpType::PRelu && !broadcasts_into(sb, sa)) continue;  // slope broadcasts into x only
    expect_vulkan_matches_reference(make_op(type), {a, b}, {1e-4, 1e-5, 1e-2, 1e-2});
  }
}

INSTANTIATE_TEST_SUITE_P(All, BinaryVk,
                         ::testing::Values(OpType::Add, OpType::Sub, OpType::Mul, OpType::Div, OpType::Pow,
                                           OpType::Min, OpType::Max, OpType::PRelu),
                         [](const auto& info) { return std::string(op_type_name(info.param)); });

TEST(MinMaxVk, ThreeInputs) {
  MOTE_REQUIRE_VULKAN();
  Tensor a = random_tensor(DType::F32, {4, 5}, 1);
  Tensor b = random_tensor(DType::F32, {5}, 2);
  Tensor c = random_tensor(DType::F32, {4, 1}, 3);
  expect_vulkan_matches_reference(make_op(OpType::Max), {a, b, c});
  expect_vulkan_matches_reference(make_op(OpType::Min), {a, b, c});
}

}  // namespace
}  // namespace mote::test
